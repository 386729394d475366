#!/usr/bin/env bash
# sd_notify protocol: NOTIFY_SOCKET points at a datagram socket this test owns; expect
# READY=1 after the first scan, STATUS= with counters, WATCHDOG=1 at half of WATCHDOG_USEC,
# and STOPPING=1 on SIGTERM followed by exit 0.
MSIT_BIN="$1"; source "$(dirname "$0")/daemon_lib.sh"
mkdir -p "$WORK/msit_ge_dump"
$DUMPS one "$WORK/msit_ge_dump/Add.Add_1.1.6.1706596912100001"
python3 - "$MSIT_BIN" "$WORK" <<'PY'
import os, signal, socket, subprocess, sys, time
binary, work = sys.argv[1], sys.argv[2]
path = os.path.join(work, "notify.sock")
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind(path)
sock.settimeout(0.2)
env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC="200000")
env.pop("WATCHDOG_PID", None)
log = open(os.path.join(work, "daemon.log"), "ab")
p = subprocess.Popen([binary, "watch", "--settle-ms", "20", os.path.join(work, "msit_ge_dump")],
                     env=env, stderr=log)
msgs, t0, stop_sent = [], time.time(), None
def seen(prefix): return [m for m in msgs if m.startswith(prefix)]
while time.time() - t0 < 20:
    try:
        msgs += sock.recv(4096).decode().split("\n")
    except socket.timeout:
        pass
    if stop_sent is None and seen("READY=1") and len(seen("WATCHDOG=1")) >= 3 and \
            any("compacted 1 files" in m for m in seen("STATUS=")):
        p.send_signal(signal.SIGTERM)
        stop_sent = time.time()
    if stop_sent is not None and p.poll() is not None:
        break
rc = p.wait(timeout=10)
# Drain what was sent just before exit.
try:
    while True:
        msgs += sock.recv(4096).decode().split("\n")
except socket.timeout:
    pass
msgs = [m for m in msgs if m]
def check(cond, what):
    if not cond:
        print("FAIL:", what, msgs, file=sys.stderr); sys.exit(1)
check(rc == 0, "exit status %d" % rc)
check(seen("READY=1"), "READY=1")
check(msgs.index("READY=1") > 0 and msgs[0].startswith("STATUS="), "STATUS before READY")
check(len(seen("WATCHDOG=1")) >= 3, "WATCHDOG=1 keep-alives")
check(any("pending" in m and "errors" in m for m in seen("STATUS=")), "STATUS counters")
check(seen("STOPPING=1"), "STOPPING=1")
check(msgs.index("STOPPING=1") > msgs.index("READY=1"), "STOPPING after READY")
print("PASS", len(msgs), "messages")
PY
