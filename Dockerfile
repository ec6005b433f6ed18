# syntax=docker/dockerfile:1
#
# ssd_exporter in a container.
#
#   docker build -t ssd_exporter .
#
# Run it with the two capabilities it needs and nothing else, and with the
# drives' device nodes, read-only:
#
#   docker run -d --name ssd_exporter -p 10049:10049 \
#     --cap-drop ALL --cap-add SYS_ADMIN --cap-add SYS_RAWIO \
#     --security-opt no-new-privileges --read-only \
#     --device /dev/nvme0:/dev/nvme0:r --device /dev/nvme0n1:/dev/nvme0n1:r \
#     --device /dev/sda:/dev/sda:r \
#     ssd_exporter
#
# - SYS_ADMIN: NVMe admin passthrough; SYS_RAWIO: SG_IO ATA PASS-THROUGH.
# - The drives are found in /sys (the host's, read-only in the container) and
#   opened in /dev, so every node the exporter should read must be passed:
#   the controller (/dev/nvme0) for health, the namespace (/dev/nvme0n1) and
#   the SATA disk (/dev/sda) for the latency probe. ":r" is enough; the
#   exporter opens them read-only. A drive in /sys without its node shows
#   ssd_device_up 0.
# - To follow drives that come and go without a restart, bind the host's /dev
#   read-only beside the container's own, point the exporter at it, and allow
#   the drivers' major numbers instead of naming nodes:
#     -v /dev:/host/dev:ro \
#     --device-cgroup-rule 'c <nvme major>:* r' \
#     --device-cgroup-rule 'b 259:* r' --device-cgroup-rule 'b 8:* r' \
#     ssd_exporter --config.file=/etc/ssd_exporter/config.yml --path.dev=/host/dev
#   NVMe's character major is dynamic: it is the "nvme" line under
#   "Character devices" in the host's /proc/devices. 259 holds the NVMe
#   namespaces; SATA disks past the 16th use sd's majors 65-71 and 128-135.
#   The bind alone is not enough: the container's device cgroup still refuses
#   to open nodes it was not given.
# - The process runs as UID 0, but with --cap-drop ALL it holds only the two
#   capabilities above (no CAP_DAC_OVERRIDE: it reads the nodes as their
#   owner, root). A non-root USER would not work under Docker: capabilities
#   from --cap-add reach a non-root process only in the inheritable set, not
#   the effective one (Docker does not set ambient capabilities), and
#   /dev/nvme0 is root:root 0600 on most hosts (see systemd/README.md).
# - SATA attribute names: the image has no smartmontools drive database, so
#   the built-in table names them. Mount the host's for the names it lacks
#   (docs/install.md, "Without a toolchain"):
#     -v /usr/share/smartmontools/drivedb.h:/usr/share/smartmontools/drivedb.h:ro
# - Configuration: /etc/ssd_exporter/config.yml is examples/config.yml; mount
#   your own over it (-v /path/config.yml:/etc/ssd_exporter/config.yml:ro).
# - The opt-in write probe needs a writable bind mount of a directory on a
#   monitored drive's filesystem, named in probe.write.path.
# - TLS and basic auth: /etc/ssd_exporter/web-config.example.yml is
#   examples/web-config.yml (the exporter-toolkit format). Mount your own web
#   config and the certificate files it names into /etc/ssd_exporter/web/
#   (-v /path/web:/etc/ssd_exporter/web:ro) and add
#   --web.config.file=/etc/ssd_exporter/web/web-config.yml to the command;
#   certificates replaced in that folder are picked up without a restart.

FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
# The caches keep the registry and build artefacts between builds; the binary
# is copied out of the cached target folder, which the next stage cannot see.
# build.rs records the git revision when .git is in the build context.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked --bin ssd_exporter \
    && cp target/release/ssd_exporter /usr/local/bin/ssd_exporter

# Same Debian release as the builder, so the glibc the binary links against
# is there; it needs nothing else.
FROM debian:bookworm-slim
COPY --from=build /usr/local/bin/ssd_exporter /usr/bin/ssd_exporter
COPY examples/config.yml /etc/ssd_exporter/config.yml
COPY examples/web-config.yml /etc/ssd_exporter/web-config.example.yml
EXPOSE 10049
ENTRYPOINT ["/usr/bin/ssd_exporter"]
CMD ["--config.file=/etc/ssd_exporter/config.yml"]
