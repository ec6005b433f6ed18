//! Test hook: a panic injected at one point of a drive's poll loop
//! (compiled only into the crate's own tests).

use std::sync::Mutex;

/// Each place in the poll loop where application code runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Point {
    Poll,
    Update,
    Judge,
    Reset,
}

impl Point {
    pub(crate) const ALL: [Point; 4] = [Point::Poll, Point::Update, Point::Judge, Point::Reset];
}

/// Armed panics: device, point, how many more times.
static ARMED: Mutex<Vec<(String, Point, u32)>> = Mutex::new(Vec::new());

/// The next `times` passes of `device`'s loop through `point` panic.
pub(crate) fn arm(device: &str, point: Point, times: u32) {
    let mut armed = ARMED.lock().unwrap_or_else(|e| e.into_inner());
    armed.push((device.to_string(), point, times));
}

pub(super) fn hit(device: &str, point: Point) {
    let fire = {
        let mut armed = ARMED.lock().unwrap_or_else(|e| e.into_inner());
        match armed
            .iter_mut()
            .find(|(d, p, n)| d == device && *p == point && *n > 0)
        {
            Some((_, _, n)) => {
                *n -= 1;
                true
            }
            None => false,
        }
    };
    if fire {
        panic!("panic injected at {point:?}");
    }
}
