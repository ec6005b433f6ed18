use super::*;
use std::io::Read;

fn gunzip(bytes: &[u8]) -> String {
    let mut out = String::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_string(&mut out)
        .expect("a valid gzip member");
    out
}

fn run(text: &str, stable: bool) -> (Arc<Vec<u8>>, bool) {
    (Arc::new(text.as_bytes().to_vec()), stable)
}

/// Text that compresses like a body: series lines with varying values.
fn lines(prefix: &str, n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "{prefix}_bucket{{device=\"nvme{}\",le=\"{i}\"}} {}\n",
                i % 8,
                i * 37
            )
        })
        .collect()
}

#[test]
fn the_runs_decompress_to_their_text_in_order() {
    let j = Joiner::default();
    let runs = vec![
        run("# HELP a\n", false),
        run(&lines("ssd_x", 3000), true),
        run("", false),
        run(&lines("ssd_probe", 500), false),
        run(&lines("ssd_qos", 40), true),
        run("process_cpu_seconds_total 1.5\n# EOF\n", false),
    ];
    let want: String = runs
        .iter()
        .map(|(t, _)| std::str::from_utf8(t).unwrap())
        .collect();
    let gz = j.join(&runs).unwrap();
    assert_eq!(gunzip(&gz), want);
    // And compressed (the line text repeats).
    assert!(gz.len() * 4 < want.len(), "{} of {}", gz.len(), want.len());
    // Nothing at all is a valid member too.
    assert_eq!(gunzip(&j.join(&[]).unwrap()), "");
}

#[test]
fn a_stable_run_is_compressed_once_and_reused_while_it_is_the_same() {
    let j = Joiner::default();
    let drives = run(&lines("ssd_x", 2000), true);
    let first = j.join(&[run("a 1\n", false), drives.clone()]).unwrap();
    let kept = |j: &Joiner| -> Vec<(usize, usize)> {
        let k = j.kept.lock().unwrap();
        k.iter()
            .map(|d| (Arc::as_ptr(&d.text) as usize, d.bytes.as_ptr() as usize))
            .collect()
    };
    let after_first = kept(&j);
    assert_eq!(after_first.len(), 1, "only the stable run is kept");
    let second = j.join(&[run("a 2\n", false), drives.clone()]).unwrap();
    // The same compressed bytes (not a new compression of the same text).
    assert_eq!(kept(&j), after_first);
    assert_eq!(
        gunzip(&second),
        format!("a 2\n{}", std::str::from_utf8(&drives.0).unwrap())
    );
    assert_ne!(first, second);
    // A new text in its place (a drive was polled) is compressed anew, and
    // the old one let go.
    let polled = run(&lines("ssd_y", 2000), true);
    let third = j.join(&[run("a 3\n", false), polled.clone()]).unwrap();
    assert_eq!(
        gunzip(&third),
        format!("a 3\n{}", std::str::from_utf8(&polled.0).unwrap())
    );
    let now = kept(&j);
    assert_eq!(now.len(), 1);
    assert_eq!(now[0].0, Arc::as_ptr(&polled.0) as usize);
}

#[test]
fn the_member_is_what_an_independent_gunzip_reads() {
    // Debian's gzip, where there is one: the trailer's CRC and length are
    // checked by `gzip -t`.
    let Ok(mut child) = std::process::Command::new("gzip")
        .args(["-t", "-"])
        .stdin(std::process::Stdio::piped())
        .spawn()
    else {
        panic!("gzip not found (Debian's gzip package is essential)");
    };
    let j = Joiner::default();
    let gz = j
        .join(&[run(&lines("ssd_x", 1000), true), run("tail\n", false)])
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&gz).unwrap();
    assert!(
        child.wait().unwrap().success(),
        "gzip -t rejected the member"
    );
}

#[test]
fn short_runs_are_stored_and_long_ones_in_many_blocks_still_read_back() {
    let j = Joiner::default();
    // Stored: short; 65535-byte blocks: a long run stored would need more
    // than one (checked directly below, as runs that long are compressed).
    let long = "x".repeat(70_000);
    let direct = stored(long.as_bytes());
    assert_eq!(direct.len(), long.len() + 10);
    let mut member = HEADER.to_vec();
    member.extend_from_slice(&direct);
    member.extend_from_slice(&[0x03, 0x00]);
    member.extend_from_slice(&crc32fast::hash(long.as_bytes()).to_le_bytes());
    member.extend_from_slice(&(long.len() as u32).to_le_bytes());
    assert_eq!(gunzip(&member), long);
    let runs = [
        run("short 1\n", false),
        run(&long, true),
        run("", true),
        run("é\n", false),
    ];
    assert_eq!(
        gunzip(&j.join(&runs).unwrap()),
        format!("short 1\n{long}é\n")
    );
}
