use super::*;

const RATE: f64 = 20.0;
const N: usize = 20_000;

fn gaps(seed: u64) -> Vec<f64> {
    let p = Poisson::new(RATE);
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..N)
        .map(|_| p.next_gap_with(&mut rng).as_secs_f64())
        .collect()
}

fn mean_var(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var)
}

#[test]
fn gap_from_known_samples() {
    let p = Poisson::new(10.0);
    // −ln(e^−1) / 10 = 0.1 s
    let g = p.gap_from((-1.0f64).exp()).as_secs_f64();
    assert!((g - 0.1).abs() < 1e-9, "{g}");
    // −ln(0.5) / 10 = ln 2 / 10 = 0.0693147…
    let g = p.gap_from(0.5).as_secs_f64();
    assert!((g - 0.069_314_718).abs() < 1e-9, "{g}");
    assert_eq!(p.gap_from(1.0), Duration::ZERO);
}

#[test]
fn gap_from_never_panics() {
    let p = Poisson::new(10.0);
    for u in [0.0, -1.0, 2.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let _ = p.gap_from(u);
    }
    // −ln(MIN_POSITIVE)/10 ≈ 70.8 s: finite, not a panic.
    assert!(p.gap_from(0.0) < Duration::from_secs(71));
    for rate in [0.0, -5.0, f64::NAN, f64::INFINITY, 1e-300] {
        let p = Poisson::new(rate);
        let _ = p.gap_from(0.5);
        let _ = p.gap_from(0.0);
    }
    assert_eq!(Poisson::new(0.0).gap_from(0.5), Duration::MAX);
    assert_eq!(Poisson::new(-5.0).gap_from(0.5), Duration::ZERO);
}

#[test]
fn mean_rate_within_3_percent() {
    // Standard error of the mean gap is 1/√N ≈ 0.7 %, so 3 % is > 4 σ.
    let (mean, _) = mean_var(&gaps(1));
    let rate = 1.0 / mean;
    assert!((rate - RATE).abs() / RATE < 0.03, "rate {rate}");
}

#[test]
fn gaps_are_exponential() {
    // Exponential: standard deviation = mean, so CV = 1. Its estimate's
    // standard error at N = 20 000 is about 1 %; allow 5 %.
    let xs = gaps(2);
    let (mean, var) = mean_var(&xs);
    let cv = var.sqrt() / mean;
    assert!((cv - 1.0).abs() < 0.05, "cv {cv}");
    // And P(gap > mean) = e^−1 ≈ 0.368.
    let above = xs.iter().filter(|&&x| x > 1.0 / RATE).count() as f64 / N as f64;
    assert!((above - (-1.0f64).exp()).abs() < 0.02, "{above}");
}

#[test]
fn counts_in_fixed_windows_are_poisson() {
    // 20 000 arrivals at 20/s span ~1000 one-second windows of mean 20;
    // a Poisson count has variance = mean. Variance estimates over 1000
    // windows have ~5 % standard error; allow 20 %.
    let xs = gaps(3);
    let mut t = 0.0;
    let mut counts = vec![0u32; 1100];
    for g in xs {
        t += g;
        if let Some(c) = counts.get_mut(t as usize) {
            *c += 1;
        }
    }
    let full = t as usize; // drop the last, partial window
    let counts: Vec<f64> = counts[..full.min(counts.len())]
        .iter()
        .map(|&c| f64::from(c))
        .collect();
    assert!(counts.len() > 900, "{}", counts.len());
    let (mean, var) = mean_var(&counts);
    assert!((mean - RATE).abs() / RATE < 0.03, "mean {mean}");
    assert!((var / mean - 1.0).abs() < 0.2, "var {var} mean {mean}");
}

#[test]
fn next_gap_uses_thread_rng() {
    let p = Poisson::new(1000.0);
    let total: Duration = (0..1000).map(|_| p.next_gap()).sum();
    // Mean 1 ms each; 1000 of them ≈ 1 s (σ ≈ 3 %).
    assert!(total > Duration::from_millis(800) && total < Duration::from_millis(1200));
}

/// Runs `Arrivals` against a clock in which each I/O takes `io(k)`:
/// the arrival instants, up to `horizon`.
fn arrivals(
    rate: f64,
    seed: u64,
    horizon: Duration,
    io: impl Fn(usize) -> Duration,
) -> Vec<Duration> {
    let p = Poisson::new(rate);
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut a = Arrivals::starting(p.next_gap_with(&mut rng));
    let (mut now, mut out) = (Duration::ZERO, Vec::new());
    while a.due() < horizon {
        now = now.max(a.due()); // sleep until due
        out.push(now);
        now += io(out.len() - 1);
        a.advance(now, p.next_gap_with(&mut rng));
    }
    out
}

#[test]
fn arrivals_keep_the_rate_when_ios_are_fast() {
    // 5/s for 4000 s with 200 µs I/Os: 20 000 expected, σ ≈ 141 (0.7 %).
    let t = arrivals(5.0, 7, Duration::from_secs(4000), |_| {
        Duration::from_micros(200)
    });
    let rate = t.len() as f64 / 4000.0;
    assert!((rate - 5.0).abs() / 5.0 < 0.03, "rate {rate}");
}

#[test]
fn a_slow_io_drops_the_arrivals_it_hid() {
    // At 10/s, I/O number 100 takes 10 s. Afterwards the stream goes on
    // at its rate from the moment the I/O ended: no burst of the ~100
    // arrivals that fell due meanwhile.
    let stall = Duration::from_secs(10);
    let t = arrivals(10.0, 11, Duration::from_secs(200), |k| {
        if k == 100 {
            stall
        } else {
            Duration::from_micros(100)
        }
    });
    let end = t[100] + stall;
    assert!(
        t[101] > end,
        "next arrival {:?} before the stall ended {end:?}",
        t[101]
    );
    let burst = t
        .iter()
        .filter(|&&x| x > end && x < end + Duration::from_millis(100))
        .count();
    assert!(burst <= 3, "{burst} arrivals within 100 ms after the stall");
    // And the 10 s of the stall are simply missing: ~1900 arrivals in 200 s.
    let n = t.len() as f64;
    assert!((n - 1900.0).abs() < 150.0, "{n}");
}

#[test]
fn advance_never_panics_at_the_ends_of_time() {
    let mut a = Arrivals::starting(Duration::MAX);
    a.advance(Duration::MAX, Duration::MAX);
    assert_eq!(a.due(), Duration::MAX);
    let mut a = Arrivals::starting(Duration::ZERO);
    a.advance(Duration::from_secs(5), Duration::ZERO);
    assert_eq!(a.due(), Duration::from_secs(5));
}

/// The same schedule driven by tokio's paused clock, the way a task
/// would sleep on it: 600 virtual seconds at 5/s run in no real time.
/// The mean rate and the Poisson spread of per-second counts hold.
#[tokio::test(start_paused = true)]
async fn arrivals_under_tokio_paused_time() {
    let p = Poisson::new(5.0);
    let mut rng = fastrand::Rng::with_seed(5);
    let t0 = tokio::time::Instant::now();
    let mut a = Arrivals::starting(p.next_gap_with(&mut rng));
    let horizon = Duration::from_secs(600);
    let mut counts = vec![0u32; 600];
    while a.due() < horizon {
        tokio::time::sleep_until(t0 + a.due()).await;
        let now = t0.elapsed();
        assert!(now >= a.due(), "woke at {now:?}, before {:?}", a.due());
        counts[now.as_secs() as usize] += 1;
        a.advance(now, p.next_gap_with(&mut rng));
    }
    // 3000 expected (σ ≈ 55, 1.8 %); per-second counts: mean 5 and
    // variance 5 (Poisson), the variance estimate over 600 windows
    // having ~6 % standard error.
    let n: u32 = counts.iter().sum();
    assert!((f64::from(n) - 3000.0).abs() < 300.0, "{n}");
    let xs: Vec<f64> = counts.iter().map(|&c| f64::from(c)).collect();
    let (mean, var) = mean_var(&xs);
    assert!((var / mean - 1.0).abs() < 0.25, "var {var} mean {mean}");
}
