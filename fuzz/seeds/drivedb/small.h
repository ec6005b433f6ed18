/* a drivedb.h in miniature */
const drive_settings builtin_knowndrives[] = {
  { "VERSION: 7.5/5706 2025-04-10 15:53:22 $Id$",
    "-", "-",
    "Version information",
    ""
  },
  { "DEFAULT",
    "-", "",
    "Default settings",
    "-v 1,raw48,Raw_Read_Error_Rate "
    "-v 9,raw24(raw8),Power_On_Hours "
    "-v 194,tempminmax,Temperature_Celsius"
  },
  { "Kingston DC500/DC600 Enterprise SSDs", // tested with KINGSTON SEDC500M1920G/SCEKJ2.3
    "KINGSTON SEDC[56]00[MR](480|960|1920|3840|7680)G",
    "SCEK.*|SCEKJ2\\.3",
    "",
    "-v 1,raw48,Raw_Read_Error_Rate "
    "-v 231,raw48,SSD_Life_Left "
    "-v 241,raw48,Lifetime_Writes_GiB,SSD "
    "-v 194,tempminmax,#2,Temperature_Celsius"
  },
  { "$Disabled entry", "X.*", "", "", "" },
  { "USB: Bridge; ", "0x1234:0x5678", "", "", "-d sat" },
};
