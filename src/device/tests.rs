use super::*;
use std::io;
use std::path::Path;

#[test]
fn errno_mapping_names_the_path_and_the_capability() {
    let gone = FetchError::from_os(
        "open",
        Path::new("/dev/sda"),
        io::Error::from_raw_os_error(libc::ENODEV),
        "CAP_SYS_RAWIO",
    );
    assert!(matches!(gone, FetchError::Gone(_)));
    let denied = FetchError::from_os(
        "open",
        Path::new("/dev/nvme0"),
        io::Error::from_raw_os_error(libc::EACCES),
        "CAP_SYS_ADMIN",
    );
    assert_eq!(
        denied,
        FetchError::Denied("open /dev/nvme0: permission denied (needs CAP_SYS_ADMIN; see systemd/ssd_exporter.service; in a container, the device must also be granted to it: deploy/README.md)".into())
    );
    let eio = FetchError::from_os(
        "smart read data",
        Path::new("/dev/sda"),
        io::Error::from_raw_os_error(libc::EIO),
        "CAP_SYS_RAWIO",
    );
    assert!(matches!(eio, FetchError::Failed(m) if m.starts_with("smart read data /dev/sda: ")));
}
