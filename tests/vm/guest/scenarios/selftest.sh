# The self-test boot (busybox sh; the host side is tools/vm/selftest.py): QEMU's AHCI
# disk (it runs SMART EXECUTE OFF-LINE IMMEDIATE and keeps a self-test log) and a
# scsi_debug SAS disk (it answers SEND DIAGNOSTIC, and has no self-test log page).
# A: the exporter with a 4 s short schedule (allowed by selftest.allow_short_intervals)
# and concurrency 1, scraped every 0.5 s for 16 s, with smartctl's self-test log of the
# AHCI disk before and after.
# C: a 1 h schedule and no state file for 5 s: a drive never tested waits for its place
# in the hour (from its serial), so neither starts (unless its place falls in those 5 s).
# B: one state file. B0, a 4 s schedule, tests both drives and saves the runs; the
# clock is then set 2 h on, so that under the 1 h schedule of B1 and B2 both drives
# are due (a drive never tested would wait for its place in the hour instead). B1
# must test each drive once; B2, started again, must not test again.
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

printf 'selftest:\n  schedule: {short: 4s}\n  allow_short_intervals: true\n  concurrency: 1\n' \
    > /tmp/a.yml
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

printf 'selftest:\n  schedule: {short: 1h}\n  concurrency: 2\n' > /tmp/b.yml
date +%s > "$OUT/c-start"
# shellcheck disable=SC2086
ssd_exporter --config.file=/tmp/b.yml --state.path=none $FLAGS 2>>"$OUT/c.log" &
PID=$!
sleep 5
timed_scrape "$OUT/c"
kill "$PID"
wait "$PID"

mkdir -p /tmp/state
printf 'selftest:\n  schedule: {short: 4s}\n  allow_short_intervals: true\n  concurrency: 2\n' \
    > /tmp/b0.yml
# shellcheck disable=SC2086
ssd_exporter --config.file=/tmp/b0.yml --state.path=/tmp/state $FLAGS 2>>"$OUT/b0.log" &
PID=$!
sleep 8
scrape "$OUT/b0.txt"
kill "$PID"
wait "$PID"
date +%s > "$OUT/clock-before-step"
date -s "@$(($(date +%s) + 7200))" > /dev/null || log "date -s failed"
date +%s > "$OUT/clock-after-step"

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
