use super::*;

#[test]
fn kelvin_uses_the_integer_offset() {
    assert_eq!(kelvin_to_celsius(323), Some(50.0));
    assert_eq!(kelvin_to_celsius(273), Some(0.0));
    assert_eq!(kelvin_to_celsius(263), Some(-10.0));
    assert_eq!(kelvin_to_celsius(0), None);
}

mod proptests;
