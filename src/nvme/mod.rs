//! Pure decoders for the NVMe pages the exporter reads.
