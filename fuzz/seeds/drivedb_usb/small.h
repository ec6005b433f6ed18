//USB
/* drivedb.h's USB section in miniature (the first line is the bridge looked up) */
const drive_settings builtin_knowndrives[] = {
  { "USB: ; JMicron JMS583", // USB->PCIe (NVMe)
    "0x152d:0x0583",
    "",
    "",
    "-d sntjmicron"
  },
  { "USB: ; JMicron JMS583 (bcd)",
    "0x152d:0x0583",
    "0x0214",
    "",
    "-d sntjmicron/sat"
  },
  { "USB: ; ASMedia ASM2362",
    "0x174c:0x2362",
    "",
    "",
    "-d sntasmedia"
  },
  { "USB: ; Realtek RTL9210",
    "0x0bda:0x9210",
    "",
    "",
    "-d sntrealtek"
  },
  { "USB: ; JMicron JMS578",
    "0x152d:0x0578",
    "",
    "",
    "-d sat,12"
  },
  { "USB: ; Unsupported bridge",
    "0x0000:0x0001",
    "",
    "",
    ""
  },
  { "USB: ; Ambiguous bridge",
    "0x1234:0x56(78|79)",
    "0x01..",
    "",
    "-d sat"
  },
  { "USB: ; Ambiguous bridge, other type",
    "0x1234:0x5678",
    "0x02..",
    "",
    "-d usbcypress"
  },
};
