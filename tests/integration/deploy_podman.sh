#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock inside a container (issue 16 item 5): podman runs the built
# airlock from a root filesystem made here (the binary, its libraries from
# ldd, dash and two coreutils; no image pull) as uid 1000, first under
# settings equivalent to Kubernetes' defaults (the runtime's default
# seccomp profile, the default capabilities, masked /proc), where sandbox
# construction must fail and say why, then under the settings of
# contrib/deploy/kubernetes-job.yaml (seccomp Unconfined, procMount
# Unmasked, no capabilities, no_new_privs), where airlock exec must work.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
if ! command -v podman >/dev/null; then
	echo "# podman is not installed (Debian: apt install podman); skipped"
	exit 77
fi
if [ "$(id -u)" != 0 ]; then
	echo "# not root: rootful podman is needed for --rootfs here; skipped"
	exit 77
fi
# crun refuses hybrid cgroup hosts (cgroup v1 with a v2 mount); runc works.
rt=()
if [ ! -f /sys/fs/cgroup/cgroup.controllers ] && command -v runc >/dev/null; then
	rt=(--runtime runc)
fi

R="$T/rootfs"
mkdir -p "$R"/usr/bin "$R"/usr/lib "$R"/usr/lib64 "$R"/usr/sbin "$R"/usr/local/bin \
    "$R"/etc "$R"/tmp "$R"/proc "$R"/dev "$R"/sys "$R"/run "$R"/ws "$R"/home/agent
chmod 1777 "$R/tmp"
for l in bin lib lib64 sbin; do ln -s "usr/$l" "$R/$l"; done
copy_bin() {	# SRC DEST
	local lib
	cp "$1" "$R$2"
	for lib in $(ldd "$1" | grep -o '/[^ ]*'); do
		mkdir -p "$R$(dirname "$lib")"
		cp -L "$lib" "$R$lib"
	done
}
copy_bin "$AIRLOCK" /usr/local/bin/airlock
for b in dash id cat; do copy_bin "$(command -v $b)" "/usr/bin/$b"; done
ln -s dash "$R/usr/bin/sh"
printf 'root:x:0:0::/root:/bin/sh\nagent:x:1000:1000::/home/agent:/bin/sh\nnobody:x:65534:65534::/nonexistent:/bin/sh\n' >"$R/etc/passwd"
printf 'root:x:0:\nagent:x:1000:\nnogroup:x:65534:\n' >"$R/etc/group"
chown 1000:1000 "$R/ws" "$R/home/agent"
echo "hello from the workspace" >"$R/ws/hello.txt"
chown 1000:1000 "$R/ws/hello.txt"
echo "the agent's token" >"$R/home/agent/token"
chown 1000:1000 "$R/home/agent/token"

# Kubernetes' defaults as podman flags: RuntimeDefault seccomp (podman's
# default profile), containerd's default capabilities (podman's plus
# NET_RAW, MKNOD, AUDIT_WRITE), masked /proc (podman's default).
pod() {
	timeout 120 podman --cgroup-manager=cgroupfs "${rt[@]}" --log-level=error \
	    run --rm --network none --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 \
	    --user 1000:1000 -e HOME=/home/agent "$@" --rootfs "$R" \
	    /usr/local/bin/airlock exec --workspace /ws -- /usr/bin/cat /ws/hello.txt 2>&1
}
out=$(pod --cap-add NET_RAW,MKNOD,AUDIT_WRITE)
check "under Kubernetes' defaults airlock refuses to run the command" bash -c '! grep -q "hello from the workspace" <<<"$1"' _ "$out"
# The runner caps its user namespace's per-user counts through
# /proc/sys/user first (docs/SANDBOX.md), which the mask makes read-only;
# past that, the masked /proc could not be mounted again
# (mount_too_revealing).
expect_contains "... because the masked /proc leaves /proc/sys/user read-only" "$out" \
    "sandbox setup failed: open /proc/sys/user/max_inotify_instances: Read-only file system"
out=$(pod --cap-add NET_RAW,MKNOD,AUDIT_WRITE --security-opt unmask=ALL)
expect_contains "with /proc unmasked, the default seccomp profile still stops it (sethostname in the runner's uts namespace)" \
    "$out" "sandbox setup failed: sethostname: Operation not permitted"
# contrib/deploy/kubernetes-job.yaml: runAsUser 1000, drop ALL,
# allowPrivilegeEscalation false, seccomp Unconfined, procMount Unmasked.
out=$(pod --cap-drop ALL --security-opt no-new-privileges --security-opt seccomp=unconfined --security-opt unmask=ALL)
expect_eq "under the documented settings the sandboxed command runs" "$out" "hello from the workspace"
out=$(timeout 120 podman --cgroup-manager=cgroupfs "${rt[@]}" --log-level=error \
    run --rm --network none --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 \
    --user 1000:1000 -e HOME=/home/agent --cap-drop ALL --security-opt no-new-privileges \
    --security-opt seccomp=unconfined --security-opt unmask=ALL --rootfs "$R" \
    /usr/local/bin/airlock exec --workspace /ws -- /usr/bin/cat /home/agent/token 2>&1)
expect_contains "... and it is a sandbox: the container user's own file is absent inside" "$out" "cat: /home/agent/token: No such file or directory"
check "... so its content does not come out" bash -c '! grep -q "the agent.s token" <<<"$1"' _ "$out"
for key in 'seccompProfile:' 'type: Unconfined' 'procMount: Unmasked' 'hostUsers: false' 'runAsUser: 1000' 'allowPrivilegeEscalation: false' 'drop: ["ALL"]'; do
	check "kubernetes-job.yaml sets $key" grep -qF "$key" "$top_srcdir/contrib/deploy/kubernetes-job.yaml"
done
finish
