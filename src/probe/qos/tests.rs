use super::*;

#[test]
fn dc600m_of_every_capacity() {
    for cap in ["480", "960", "1920", "3840", "7680"] {
        let model = format!("KINGSTON SEDC600M{cap}G");
        let t = targets_for(&model);
        assert_eq!(t.len(), 2, "{model}");
        assert_eq!(
            (t[0].op, t[0].quantile_label, t[0].seconds),
            (ProbeOp::Read, "0.99999", 200e-6)
        );
        assert_eq!(
            (t[1].op, t[1].quantile_label, t[1].seconds),
            (ProbeOp::Write, "0.99999", 300e-6)
        );
        assert_eq!(t[0].quantile, 0.99999);
    }
    // Padding as in the IDENTIFY model field, and lower case.
    assert_eq!(targets_for("KINGSTON SEDC600M960G          ").len(), 2);
    assert_eq!(targets_for("kingston sedc600m960g").len(), 2);
    assert_eq!(targets_for("KINGSTON SEDC600M").len(), 2);
}

#[test]
fn other_drives_have_none() {
    for model in [
        "KINGSTON SEDC2000BM8960G",
        "Sabrent Rocket 4.0 2TB",
        "KINGSTON SEDC500M960G",
        "KINGSTON SEDC600ME960G",
        "KINGSTON SEDC600M960GX",
        "KINGSTON SEDC600MG",
        "KINGSTON SEDC600",
        "",
        "é",
        "KINGSTON SEDC60é",
    ] {
        assert!(targets_for(model).is_empty(), "{model:?}");
    }
}

#[test]
fn breach_needs_the_samples_behind_the_quantile() {
    let window = |p9999: f64, p999: f64, n: u64| {
        move |q: f64| Some((if q > 0.9995 { p9999 } else { p999 }, n))
    };
    let limit = 200e-6;
    // 3 000 samples (the default window): p99.9 is the evidence
    assert_eq!(breach(window(900e-6, 250e-6, 3_000), limit), Some(250e-6));
    assert_eq!(breach(window(900e-6, 150e-6, 3_000), limit), None);
    // too few samples for either
    assert_eq!(breach(window(900e-6, 900e-6, 2_499), limit), None);
    // enough for p99.99: it decides first
    assert_eq!(breach(window(210e-6, 150e-6, 10_000), limit), Some(210e-6));
    assert_eq!(breach(window(200e-6, 150e-6, 10_000), limit), None);
    assert_eq!(breach(|_| None, limit), None);
}
