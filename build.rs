//! Records the git revision for `ssd_exporter_build_info`.
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let rev = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=SSD_EXPORTER_REVISION={rev}");
    println!("cargo:rerun-if-changed=build.rs");
    // Rebuild when HEAD moves; only name paths that exist (a missing path
    // would make cargo rerun this script, and relink, on every build).
    for what in ["HEAD", "refs/heads"] {
        if let Some(path) = git(&["rev-parse", "--git-path", what]) {
            if std::path::Path::new(&path).exists() {
                println!("cargo:rerun-if-changed={path}");
            }
        }
    }
}
