//! Tests with hand-computed expectations.

mod rawfmt;
