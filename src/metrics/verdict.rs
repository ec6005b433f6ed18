//! The health verdict: status, active problems, what could not be judged,
//! and the wear-out forecast.

use std::fmt;

use prometheus_client::metrics::MetricType;

use super::{Enc, Exposition, family};

impl Exposition {
    pub(super) fn verdict(&self, enc: &mut Enc) -> fmt::Result {
        let judged = || {
            self.drives
                .iter()
                .filter_map(|d| d.verdict.as_ref().map(|v| (d.as_ref(), v)))
        };
        let status = judged().map(|(d, v)| (Self::base(d), f64::from(v.overall() as u8)));
        family(
            enc,
            "ssd_health_status",
            "Health verdict: 0 ok, 1 warning, 2 critical, 3 unknown (no core health data, nothing critical known), 4 not judged (not a drive the verdict can judge: a virtual volume or a LUN; ssd_health_unknown lists everything); muted problems do not count; see ssd_health_problem for why.",
            MetricType::Gauge,
            status,
        )?;
        let problems = judged().flat_map(|(d, v)| {
            v.problems.iter().map(move |p| {
                (
                    Self::with(
                        d,
                        [
                            ("problem", p.name.as_label()),
                            ("severity", p.severity_label()),
                        ],
                    ),
                    1.0,
                )
            })
        });
        family(
            enc,
            "ssd_health_problem",
            "One series per active problem of the drive (severity \"muted\": muted for this drive by the config, not in ssd_health_status); always 1.",
            MetricType::Gauge,
            problems,
        )?;
        let unknown = judged().flat_map(|(d, v)| {
            v.unknown
                .iter()
                .map(move |&u| (Self::with(d, [("data", u)]), 1.0))
        });
        family(
            enc,
            "ssd_health_unknown",
            "What the verdict could not judge: what the drive does not report, or everything of a device not judged (ssd_health_status 4); always 1.",
            MetricType::Gauge,
            unknown,
        )?;
        let expiry = self.drives.iter().flat_map(|d| {
            d.mute_expiry.iter().map(move |&(p, until)| {
                let at = until
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0.0, |t| t.as_secs_f64());
                (Self::with(d, [("problem", p.as_label())]), at)
            })
        });
        family(
            enc,
            "ssd_health_mute_expiry_timestamp_seconds",
            "When the mute of that problem for this drive ends (health.overrides until), the soonest of its mutes in force; a mute without an end has no series.",
            MetricType::Gauge,
            expiry,
        )?;
        let wearout = self
            .drives
            .iter()
            .filter_map(|d| d.wearout_seconds.map(|s| (Self::base(d), s)));
        family(
            enc,
            "ssd_wearout_estimated_seconds",
            "Time until percentage used reaches 100 % at the rate seen so far.",
            MetricType::Gauge,
            wearout,
        )?;
        let endurance = self
            .drives
            .iter()
            .filter_map(|d| d.endurance_used.map(|e| (Self::base(d), e)));
        family(
            enc,
            "ssd_endurance_used_ratio",
            "Bytes written against the rated endurance (ssd_rated_endurance_bytes: the user's value, the datasheet's TBW or DWPD x warranty, else the drive's own endurance group estimate); may exceed 1.",
            MetricType::Gauge,
            endurance,
        )?;
        let rated = self.drives.iter().filter_map(|d| {
            let r = d.rated_endurance.as_ref()?;
            Some((Self::with(d, [("source", r.source.as_label())]), r.bytes))
        });
        family(
            enc,
            "ssd_rated_endurance_bytes",
            "The endurance the drive is judged against, and where it comes from (override, datasheet, endurance_group).",
            MetricType::Gauge,
            rated,
        )
    }
}
