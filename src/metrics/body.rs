//! The body of a scrape, in one place: for a [`Format`] and an
//! [`Encoding`], made of the drives' cached runs ([`Cache`]) and, gzipped,
//! of their kept deflate streams ([`Joiner`]). The server only negotiates
//! and sends the bytes; nothing here touches a drive.

use std::io::Write as _;
use std::sync::Arc;

use flate2::Compression;
use flate2::write::GzEncoder;

use super::gzip::Joiner;
use super::{BuildInfo, Cache, Encoding, Format};
use crate::probe::fleet::ProbeView;
use crate::snapshot::DriveSnapshot;

/// What a body is made of: the drives (each one's snapshot) and the
/// probes' views, as published.
pub type Views = (Vec<Arc<DriveSnapshot>>, Arc<Vec<ProbeView>>);

/// Every body the server sends, and what is kept between scrapes to make
/// the next one cheaply.
#[derive(Debug, Default)]
pub struct Bodies {
    /// Each drive's encoded series, kept until its snapshot changes.
    encoded: Cache,
    /// Per format, the deflate streams of the drives' runs of the last
    /// gzip body, kept while they are the same (a scraper asks one format,
    /// but two scrapers may differ).
    gzipped: [Joiner; 3],
}

impl Bodies {
    /// The body in `format` and `encoding`, encoding what is not cached.
    /// An error only from the compressor.
    pub fn body(
        &self,
        (drives, probes): Views,
        build: &BuildInfo,
        format: Format,
        encoding: Encoding,
    ) -> std::io::Result<Vec<u8>> {
        if encoding == Encoding::Identity {
            return Ok(self.encoded.encode(drives, probes, build, format));
        }
        let all = drives.clone();
        match self
            .encoded
            .encode_segments(drives, Arc::clone(&probes), build, format)
        {
            Some(segments) => {
                let runs: Vec<_> = segments.into_iter().map(|s| (s.text, s.stable)).collect();
                self.gzipped[format.index()].join(&runs)
            }
            // A split failed (logged by the encode): compress it whole.
            None => gzip(&self.encoded.encode(all, probes, build, format)),
        }
    }

    /// The same body when it is a copy of what is already encoded (only
    /// the process-wide series are read anew), cheap enough for an async
    /// thread; `None` when something would need encoding or compressing.
    pub fn body_cached(
        &self,
        (drives, probes): Views,
        build: &BuildInfo,
        format: Format,
        encoding: Encoding,
    ) -> Option<Vec<u8>> {
        if encoding == Encoding::Gzip {
            return None;
        }
        self.encoded.encode_cached(drives, probes, build, format)
    }
}

/// `data` as one gzip member.
fn gzip(data: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut encoder = GzEncoder::new(Vec::with_capacity(data.len() / 4), Compression::fast());
    encoder.write_all(data)?;
    encoder.finish()
}
