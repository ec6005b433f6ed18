use super::*;
use crate::config::RawFile;
use crate::device::discovery::Kind;
use crate::probe::fleet::Fleet;
use crate::probe::runner::ProbeConfig;
use crate::snapshot::Store;
use tokio::sync::Notify;

/// The hot-plug race seen in the VM: discovery finds a new controller
/// before the kernel has created its namespace's block device. The next
/// pass, which lists the namespace, must start its probe.
#[tokio::test]
async fn a_namespace_listed_on_a_later_pass_gets_its_probe() {
    let dir = tempfile::tempdir().unwrap();
    let (sys, dev) = (dir.path().join("sys"), dir.path().join("dev"));
    std::fs::create_dir_all(&dev).unwrap();
    let config = Config::try_from(RawFile::parse("").unwrap()).unwrap();
    let fleet = Arc::new(Fleet::new(
        ProbeConfig {
            sysfs: sys.clone(),
            rate: 1.0,
            ..ProbeConfig::default()
        },
        dev.clone(),
        None,
    ));
    let ctx = Ctx {
        namer: Arc::new(config.namer()),
        judge: crate::snapshot::judge(Arc::new(config.health.clone()), None),
        config,
        store: Arc::new(Store::default()),
        probes: Some(fleet.clone()),
        gone: Arc::new(Notify::new()),
        pel_marks: None,
        selftests: Arc::new(crate::app::selftest::SelfTests::new(
            Default::default(),
            None,
            Arc::default(),
        )),
        pool: Arc::new(crate::app::pool::Pool::new(1, Arc::default())),
    };
    let found = |namespaces: &[&str]| Discovered {
        name: "nvme9".into(),
        transport: Transport::Nvme,
        dev_path: dev.join("nvme9"),
        model: "TEST".into(),
        serial: "S9".into(),
        firmware: "1".into(),
        namespaces: namespaces.iter().map(|n| n.to_string()).collect(),
        kind: crate::device::discovery::Kind::Physical,
        basis: String::new(),
        sysfs: sys.join("class/nvme/nvme9"),
        megaraid: None,
        place: Default::default(),
        paths: Vec::new(),
        subsystem: None,
        usb: None,
    };
    let mut running = Drives(HashMap::new());
    let starts = reconcile(&mut running, vec![found(&[])], &ctx);
    start_probes(&ctx, starts);
    assert!(running.0.contains_key("nvme9"));
    assert!(fleet.views().is_empty());

    crate::probe::fake_block_device(&sys, &dev, "nvme9n1");
    let starts = reconcile(&mut running, vec![found(&["nvme9n1"])], &ctx);
    start_probes(&ctx, starts);
    let views = fleet.views();
    assert_eq!(views.len(), 1, "the namespace that appeared is not probed");
    assert_eq!(views[0].block, "nvme9n1");
    fleet.stop_drive("nvme9");
}

/// Issue 21: a virtual volume (a RAID logical drive, a virtual disk) is
/// watched but not probed; the same disk as a physical drive is.
#[tokio::test]
async fn a_virtual_volume_gets_no_probe() {
    let dir = tempfile::tempdir().unwrap();
    let (sys, dev) = (dir.path().join("sys"), dir.path().join("dev"));
    std::fs::create_dir_all(&dev).unwrap();
    let config = Config::try_from(RawFile::parse("").unwrap()).unwrap();
    let fleet = Arc::new(Fleet::new(
        ProbeConfig {
            sysfs: sys.clone(),
            rate: 1.0,
            ..ProbeConfig::default()
        },
        dev.clone(),
        None,
    ));
    let ctx = Ctx {
        namer: Arc::new(config.namer()),
        judge: crate::snapshot::judge(Arc::new(config.health.clone()), None),
        config,
        store: Arc::new(Store::default()),
        probes: Some(fleet.clone()),
        gone: Arc::new(Notify::new()),
        pel_marks: None,
        selftests: Arc::new(crate::app::selftest::SelfTests::new(
            Default::default(),
            None,
            Arc::default(),
        )),
        pool: Arc::new(crate::app::pool::Pool::new(1, Arc::default())),
    };
    crate::probe::fake_block_device(&sys, &dev, "sdq");
    let disk = |kind| Discovered {
        name: "sdq".into(),
        transport: Transport::Scsi,
        dev_path: dev.join("sdq"),
        model: "QEMU QEMU HARDDISK".into(),
        serial: "Q1".into(),
        firmware: "2.5+".into(),
        namespaces: vec!["sdq".into()],
        kind,
        basis: String::new(),
        sysfs: sys.join("block/sdq"),
        megaraid: None,
        place: Default::default(),
        paths: Vec::new(),
        subsystem: None,
        usb: None,
    };
    let mut running = Drives(HashMap::new());
    let starts = reconcile(&mut running, vec![disk(Kind::Virtual)], &ctx);
    start_probes(&ctx, starts);
    assert!(running.0.contains_key("sdq"), "watched");
    assert!(fleet.views().is_empty(), "a virtual volume is not probed");
    assert_eq!(ctx.store.get("sdq").unwrap().identity.kind, Kind::Virtual);
    let mut running = Drives(HashMap::new());
    let starts = reconcile(&mut running, vec![disk(Kind::Physical)], &ctx);
    start_probes(&ctx, starts);
    assert_eq!(fleet.views().len(), 1, "a physical drive is");
    fleet.stop_drive("sdq");
}
