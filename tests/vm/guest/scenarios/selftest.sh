# The self-test boot (busybox sh; the host side is tools/vm/selftest.py): QEMU's AHCI
# disk (it runs SMART EXECUTE OFF-LINE IMMEDIATE and keeps a self-test log) and a
# scsi_debug SAS disk (it answers SEND DIAGNOSTIC, and has no self-test log page).
# A: the exporter with a 4 s short schedule and concurrency 1, scraped every 0.5 s for
# 16 s, with smartctl's self-test log of the AHCI disk before and after.
# B: a 1 h schedule with a state file, the exporter stopped and started again: the
# second run must not test again.
. /guest/lib.sh

OUT=$SHARE/selftest
mkdir -p "$OUT"
ip link set lo up

SATA=$(wait_disk ATA 30) || log "the AHCI disk did not appear"
KO=$(grep -h '/scsi_debug\.ko$' /etc/modules-selftest.order /etc/modules-late.order | head -n 1)
rmmod scsi_debug 2>/dev/null || log "rmmod scsi_debug failed"
insmod "$KO" dev_size_mb=16 inq_vendor=SEAGATE inq_product=XS800LE10003 ||
    log "insmod $KO failed"
SAS=$(wait_disk SEAGATE 20) || log "the scsi_debug disk did not appear"
{ echo "SATA=${SATA:-}"; echo "SAS=${SAS:-}"; } > "$OUT/disks"
smartctl -j -l selftest "/dev/$SATA" > "$OUT/selftest-before.json" 2>&1

FLAGS="--web.listen-address=127.0.0.1:10049 --poll.interval=1s --poll.timeout=3s
    --discovery.interval=1s --probe.disable --log.level=info"

printf 'selftest:\n  schedule: {short: 4s}\n  concurrency: 1\n' > /tmp/a.yml
# shellcheck disable=SC2086
ssd_exporter --config.file=/tmp/a.yml --state.path=none $FLAGS 2>>"$OUT/a.log" &
PID=$!
i=0
while [ "$i" -lt 32 ]; do
    timed_scrape "$(printf '%s/a-%02d' "$OUT" "$i")"
    usleep 500000
    i=$((i + 1))
done
kill "$PID"
wait "$PID"
smartctl -j -l selftest "/dev/$SATA" > "$OUT/selftest-after.json" 2>&1

mkdir -p /tmp/state
printf 'selftest:\n  schedule: {short: 1h}\n  concurrency: 2\n' > /tmp/b.yml
for run in 1 2; do
    # shellcheck disable=SC2086
    ssd_exporter --config.file=/tmp/b.yml --state.path=/tmp/state $FLAGS \
        2>>"$OUT/b$run.log" &
    PID=$!
    sleep 5
    scrape "$OUT/b$run.txt"
    kill "$PID"
    wait "$PID"
done
sync_stage done 10
