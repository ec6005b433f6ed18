//! Tests with hand-computed expectations (raw formats from the byte layouts
//! in `atacmds.cpp`; names read from drivedb.h).

mod namer;
mod rawfmt;
mod realdb;
