// Helpers of the mixin: selector rewriting, text folding, durations in words.
{
  // A `>-` folded YAML scalar written as a jsonnet text block: the lines
  // joined by single spaces, without the final newline.
  fold(text)::
    std.join(' ', std.filter(function(l) l != '', std.split(text, '\n'))),

  local identChar(ch) =
    (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')
    || ch == '_' || ch == ':',

  // std.split with a separator of more than one character (jsonnet 0.18's
  // std.split takes one character, and its std.findSubstr is slow): the
  // separator replaced by a control character PromQL never holds.
  local splitStr(s, sep) =
    assert std.length(std.split(s, '\u0001')) == 1 : 'a control character U+0001 in a query';
    std.split(std.strReplace(s, sep, '\u0001'), '\u0001'),

  // The length of the metric-name tail at the start of `s`.
  local nameLen(s) =
    local go(k) = if k < std.length(s) && identChar(s[k]) then go(k + 1) else k;
    go(0),

  // `expr` with `matchers` (e.g. 'cluster="eu1"') added to every vector
  // selector of an exporter metric: every name that starts with `ssd_` and
  // has no colon (recording rules, `...:ssd_...` and `ssd_exporter:...`, are
  // left as they are). A bare name gains `{matchers}`, a selector with
  // matchers gets them first: `ssd_x{a="b"}` becomes `ssd_x{matchers, a="b"}`.
  // Names inside quotes or in the middle of another name are not touched.
  // With empty `matchers` the expression is returned unchanged.
  addSsdSelector(expr, matchers)::
    if matchers == '' then expr else
      local parts = splitStr(expr, 'ssd_');
      local rewrite(i) =
        local prev = parts[i - 1];
        local before =
          if prev != '' then prev[std.length(prev) - 1]
          else if i == 1 then ' '
          else '_';
        local piece = parts[i];
        local n = nameLen(piece);
        local name = std.substr(piece, 0, n);
        local rest = std.substr(piece, n, std.length(piece) - n);
        if n == 0 || identChar(before) || before == '"' || before == "'" || before == '`'
           || std.length(std.findSubstr(':', name)) > 0 then
          'ssd_' + piece
        else if std.startsWith(rest, '{}') then
          'ssd_' + name + '{' + matchers + std.substr(rest, 1, std.length(rest) - 1)
        else if std.startsWith(rest, '{') then
          'ssd_' + name + '{' + matchers + ', ' + std.substr(rest, 1, std.length(rest) - 1)
        else
          'ssd_' + name + '{' + matchers + '}' + rest;
      parts[0] + std.join('', [rewrite(i) for i in std.range(1, std.length(parts) - 1)]),

  // `text` (an annotation) with `matchers` added to the selector of every
  // query its templates build with printf: `ssd_x{instance=%q,...}` in
  // backquotes becomes `ssd_x{matchers, instance=%q,...}` (a `%` in the
  // matchers doubled for printf). Unchanged with empty `matchers`.
  addSsdSelectorToTemplates(text, matchers)::
    if matchers == '' then text else
      local parts = splitStr(text, '`ssd_');
      local printf = std.strReplace(matchers, '%', '%%');
      local rewrite(piece) =
        local n = nameLen(piece);
        local name = std.substr(piece, 0, n);
        local rest = std.substr(piece, n, std.length(piece) - n);
        if n > 0 && std.length(std.findSubstr(':', name)) == 0 && std.startsWith(rest, '{')
        then name + '{' + printf + ', ' + std.substr(rest, 1, std.length(rest) - 1)
        else piece;
      parts[0] + std.join('', ['`ssd_' + rewrite(p) for p in parts[1:]]),

  // Rules with `c.ssdSelector` added to every ssd_* selector of their expr
  // and of the queries their annotations make.
  ssdRules(c, rules):: [
    r { expr: $.addSsdSelector(super.expr, c.ssdSelector) }
    + (if std.objectHas(r, 'annotations') then {
         annotations: std.mapWithKey(
           function(k, v) $.addSsdSelectorToTemplates(v, c.ssdSelector), r.annotations
         ),
       } else {})
    for r in rules
  ],

  // A Prometheus duration ('15m', '1h', '30d', '600s') in words:
  // '15 minutes', '1 hour'.
  words(d)::
    local units = { s: 'second', m: 'minute', h: 'hour', d: 'day', w: 'week' };
    local n = std.substr(d, 0, std.length(d) - 1);
    local u = units[d[std.length(d) - 1]];
    n + ' ' + u + (if n == '1' then '' else 's'),

  // 'the last hour' for '1h', 'the last 15 minutes' for '15m'.
  last(d)::
    local w = $.words(d);
    'the last ' + (if std.startsWith(w, '1 ') then std.substr(w, 2, std.length(w) - 2) else w),

  // A number as PromQL and prose write it: 0.5, 2, 10000, at most six
  // decimals (std.toString would write 0.80000000000000004).
  num(x)::
    local micro = std.floor(std.abs(x) * 1000000 + 0.5);
    local int = std.floor(micro / 1000000);
    local frac = micro - int * 1000000;
    (if x < 0 then '-' else '')
    + std.toString(int)
    + (if frac == 0 then '' else '.' + std.rstripChars(std.format('%06d', frac), '0')),

  // A ratio as a percentage in prose: 0.5 -> '50 %'.
  pct(x):: $.num(x * 100) + ' %',

  // The probe latency histogram's series as `c.nativeHistograms` says
  // Prometheus stores them: `buckets` the name of the series that hold its
  // buckets (the one native histogram, or the classic _bucket series),
  // `rate(sel)` the argument of rate() that histogram_quantile() takes,
  // `count(sel, window)` the reads completed in the window, and `andCount`
  // the `and` that joins the two (the classic buckets carry `le`, the count
  // does not). The queries keep their `sum by (le, ...)`: a native
  // histogram has no `le`, so it is summed whole.
  probeLatency(c)::
    local name = 'ssd_probe_latency_seconds';
    if c.nativeHistograms then {
      buckets:: name,
      rate(sel):: name + sel,
      count(sel, window):: 'histogram_count(increase(%s%s[%s]))' % [name, sel, window],
      andCount:: 'and',
    } else {
      buckets:: name + '_bucket',
      rate(sel):: name + '_bucket' + sel,
      count(sel, window):: 'increase(%s_count%s[%s])' % [name, sel, window],
      andCount:: 'and ignoring(le)',
    },

  // `c` for `%` formatting in the rules: its numbers as num() writes them,
  // plus the phrases the descriptions quote.
  formats(c)::
    c
    + { [k]: $.num(c[k]) for k in std.objectFields(c) if std.isNumber(c[k]) }
    + {
      local sel = c.ssdExporterSelector,
      local oneJob = std.startsWith(sel, 'job="') && std.endsWith(sel, '"')
                     && std.length(std.findSubstr('"', sel)) == 2,
      plpHealthLowPct: $.pct(c.plpHealthLowRatio),
      wearHighPct: $.pct(c.wearHighRatio),
      wearCriticalPct: $.pct(c.wearCriticalRatio),
      spareLowTimes: if c.spareLowFactor == 2 then 'twice' else $.num(c.spareLowFactor) + ' times',
      counterLast: $.last(c.counterWindow),
      counterLastBare: std.substr(self.counterLast, 4, std.length(self.counterLast) - 4),
      throttleLast: $.last(c.throttleWindow),
      pollErrorsLast: $.last(c.pollErrorsWindow),
      pollStaleNote: if c.pollStaleSeconds == 600 then ', ten default poll intervals' else '',
      exporterTargets:
        if oneJob then 'in job ' + std.substr(sel, 4, std.length(sel) - 4)
        else 'matching {' + sel + '}',
    },
}
