//! The only `unsafe` in the crate: ioctls wrapped as safe functions.
#![allow(unsafe_code)]
