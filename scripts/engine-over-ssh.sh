#!/usr/bin/env bash
# Runs a command against the local Docker engine as if it were on another machine: an sshd of its own on 127.0.0.1
# (own config, host key and authorized key in a temp folder, key login only) in front of the engine, and
# DOCKER_HOST=ssh://USER@127.0.0.1:PORT for the command. The far side's `docker system dial-stdio` relays each
# connection to the engine's socket, as on a remote host. The client side's ~/.ssh (the key and a known_hosts entry
# for this sshd) is written to DEEP_ACP_TEST_ENGINE_HOME/.ssh; the container tests copy it into the HOME they give
# the agent (test/support/docker.ts). The sshd is stopped by its pid and the folder removed on exit.
# Usage: scripts/engine-over-ssh.sh COMMAND [ARGS...]
set -euo pipefail
sshd_bin=/usr/sbin/sshd
[ -x "$sshd_bin" ] || { echo "engine-over-ssh: $sshd_bin is missing (apt-get install openssh-server)" >&2; exit 1; }
docker info >/dev/null 2>&1 || { echo "engine-over-ssh: no Docker engine answers here" >&2; exit 1; }

dir="$(mktemp -d /tmp/deep-acp-engine-ssh.XXXXXX)"
sshd_pid=""
stop() {
  if [ -n "$sshd_pid" ]; then
    kill "$sshd_pid" 2>/dev/null || true
    wait "$sshd_pid" 2>/dev/null || true
  fi
  rm -rf "$dir"
}
trap stop EXIT

user="$(id -un)"
# sshd running as root needs its privilege-separation folder (the openssh-server package's own path).
[ "$(id -u)" -ne 0 ] || mkdir -p /run/sshd
ssh-keygen -q -t ed25519 -N "" -C deep-acp-engine-host -f "$dir/host_key"
mkdir -p "$dir/home/.ssh"
chmod 700 "$dir/home/.ssh"
ssh-keygen -q -t ed25519 -N "" -C deep-acp-engine-client -f "$dir/home/.ssh/id_ed25519"
cp "$dir/home/.ssh/id_ed25519.pub" "$dir/authorized_keys"
port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
cat >"$dir/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $dir/host_key
AuthorizedKeysFile $dir/authorized_keys
PidFile none
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
AllowUsers $user
AllowTcpForwarding no
AllowAgentForwarding no
X11Forwarding no
PrintMotd no
MaxSessions 10
MaxStartups 100:30:200
LogLevel ERROR
EOF
"$sshd_bin" -D -e -f "$dir/sshd_config" 2>"$dir/sshd.log" &
sshd_pid=$!
echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$dir/host_key.pub")" >"$dir/home/.ssh/known_hosts"
for _ in $(seq 1 50); do
  node -e 'require("net").connect(+process.argv[1],"127.0.0.1").on("connect",()=>process.exit(0)).on("error",()=>process.exit(1))' "$port" && break
  sleep 0.1
done

export DOCKER_HOST="ssh://$user@127.0.0.1:$port"
export DEEP_ACP_TEST_ENGINE_HOME="$dir/home"
echo "[engine-over-ssh] DOCKER_HOST=$DOCKER_HOST"
status=0
"$@" || status=$?
[ "$status" -eq 0 ] || { echo "[engine-over-ssh] sshd log:" >&2; tail -20 "$dir/sshd.log" >&2; }
exit "$status"
