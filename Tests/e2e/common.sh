# Sourced by the guest scenarios: the run's folder, the binaries, and the steps they share.
# Each step waits on an event (a line, a process, a device); `until_true` retries a check every
# 0.1 s up to a bound, for the few things that give no event to wait on.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
out=/run/e2e
# What Tests/e2e/run put on the kernel's command line: NAME=VALUE.
boot_parameter() { sed -n "s/.*$1=\\([^ ]*\\).*/\\1/p" /proc/cmdline; }
repo=$(boot_parameter sheetd_repo)
# The programs under test (the tree's release build, or an installed package's /usr/bin), the
# Python with the tests' packages, and the display's kernel module.
bin=$(boot_parameter sheetd_bin)
python=$(boot_parameter sheetd_python)
display_module=$(boot_parameter sheetd_display)
socket=/run/sheetd/io.sheetd.Sheet

say() { echo "e2e $(cut -d' ' -f1 /proc/uptime)s: $*" | tee -a "$out/steps.log" > /dev/console; }
finish() {
    # A scenario's last words (the as-installed one keeps the journal).
    if command -v before_finish > /dev/null; then before_finish; fi
    echo "$1" > "$out/result"
    say "$1"
    sync
    busybox poweroff -f
}
fail() { finish "FAIL: $*"; }

# Runs "$@" every 0.1 s until it succeeds, for at most $1 tenths of a second.
until_true() {
    tries=$1
    shift
    while ! "$@" > /dev/null 2>&1; do
        tries=$((tries - 1))
        [ "$tries" -gt 0 ] || return 1
        sleep 0.1
    done
}

uses_node() { "$bin/sheetctl" devices --socket "$socket" --format json | grep -F "\"node\":\"$1\"" | grep -q '"used":true'; }
released() { ! uses_node "$1"; }
used_devices() { "$bin/sheetctl" devices --socket "$socket" --format json | grep -c '"used":true'; }
has_used_devices() { [ "$(used_devices)" -eq "$1" ]; }
has_line() { [ -s "$1" ]; }

# udevd with the host's rules, and the input modules (and any others named).
start_udev() {
    modprobe -a uinput evdev "$@" || fail "modprobe uinput evdev $*"
    /lib/systemd/systemd-udevd --daemon --resolve-names=early || fail "systemd-udevd"
    udevadm trigger --action=add --subsystem-match=input --subsystem-match=misc --subsystem-match=drm --subsystem-match=graphics
    udevadm settle -t 60 || fail "udevadm settle"
    say "udevd settled"
}

# A udev rule that lets sheetd read the keyboard called "sheetd e2e keyboard" (SHEETD_KEYS=1),
# in force for devices plugged from now on.
opt_in_keyboard() {
    mkdir -p /run/udev/rules.d
    echo 'SUBSYSTEM=="input", KERNEL=="event*", ATTRS{name}=="sheetd e2e keyboard", ENV{SHEETD_KEYS}="1"' \
        > /run/udev/rules.d/70-sheetd-e2e-keys.rules
    udevadm control --reload || fail "keys: udevadm control --reload"
}

# The sheet rests with no input active.
at_rest() { "$bin/sheetctl" state --socket "$socket" | grep -q '"state":"resting".*"inputActive":false'; }

# Whether the state's focus is $1 with its ring shown.
focus_is() { "$bin/sheetctl" state --socket "$socket" | grep -q "\"focusVisible\":true,\"focus\":\"$1\""; }
# The sheet shown is $1 (a program's, or null for the shared one) and rests.
shown_at_rest() { "$bin/sheetctl" state --socket "$socket" | grep "\"sheet\":$1," | grep -q '"state":"resting"'; }

# Plugs in the device described in $2 (default: the touchscreen); its node goes to $1.node.
plug() {
    evemu-device "$out/${2:-touchscreen}.evemu" > "$out/$1.evemu-device" 2>&1 &
    echo $! > "$out/$1.pid"
    until_true 300 grep -q /dev/input/event "$out/$1.evemu-device" || fail "evemu-device: $(cat "$out/$1.evemu-device")"
    grep -o '/dev/input/event[0-9]*' "$out/$1.evemu-device" > "$out/$1.node"
}

# Step $1: runs the rest of the line while recording the Monitor stream until the sheet
# rests again; then the state.
step() {
    name=$1
    shift
    # Emptied here, not by the watcher's redirection, which the shell makes after it forks: a
    # step run before under the same name must not pass for this watcher having started.
    : > "$out/$name.watch.jsonl"
    timeout 120 "$bin/sheetctl" watch --socket "$socket" --until-next-rest >> "$out/$name.watch.jsonl" &
    watcher=$!
    until_true 300 has_line "$out/$name.watch.jsonl" || fail "$name: sheetctl watch did not start"
    "$@" || fail "$name: $*"
    wait "$watcher" || fail "$name: the sheet did not come to rest"
    "$bin/sheetctl" state --socket "$socket" > "$out/$name.state.json"
    say "$name: $(head -c 120 "$out/$name.state.json")"
}

# Plays gesture $1 into the device whose node is in file $2, and keeps what the kernel
# delivered (evemu-record of the same node, beside the daemon) in $1.delivered.evemu: on a
# starved VM the player writes late, and what the kernel timed is what the daemon judged.
reports() { grep -c '^E: [0-9.]* 0000 0000 ' "$1" 2> /dev/null; }
delivered_whole() { [ "$(reports "$out/$1.delivered.evemu")" = "$(reports "$out/$1.evemu")" ]; }
play() {
    node=$(cat "$out/$2.node")
    stdbuf -oL evemu-record "$node" > "$out/$1.delivered.evemu" 2> "$out/$1.delivered.log" &
    recorder=$!
    until_true 300 grep -q '^N:' "$out/$1.delivered.evemu" || fail "$1: evemu-record did not open $node: $(cat "$out/$1.delivered.log")"
    step "$1" sh -c "evemu-play $node < $out/$1.evemu"
    until_true 300 delivered_whole "$1" \
        || fail "$1: evemu-record kept $(reports "$out/$1.delivered.evemu") of $(reports "$out/$1.evemu") reports"
    kill "$recorder"
    wait "$recorder" 2> /dev/null
}

# After a gesture whose outcome depends on its speed: when the sheet rests elsewhere than $1
# (the kernel delivered a slower gesture than the recording's; the host's check judges the
# step by what was delivered), it is put at $1 so that the steps after it start where they
# should, and the step's name goes to corrected.log.
expect_rest() {
    detent=$("$bin/sheetctl" state --socket "$socket" | sed -n 's/.*"detent":"\([a-z]*\)".*/\1/p')
    [ "$detent" = "$1" ] && return
    say "$2: rests at ${detent:-none}, not $1 (the gesture delivered was another); put at $1 for the next steps"
    echo "$2 $detent $1" >> "$out/corrected.log"
    if [ "$1" = hidden ]; then
        step "$2-corrected" "$bin/sheetctl" dismiss --socket "$socket"
    else
        step "$2-corrected" "$bin/sheetctl" detent "$1" --socket "$socket"
    fi
}


# A finger drags the card and stays down; the device goes away under it. The step ends when
# the sheet has settled.
remove_under_finger() {
    evemu-play "$(cat "$out/first.node")" < "$out/hold.evemu" || return 1
    until_true 300 grep -q '"dragging"' "$out/removed.watch.jsonl" || return 1
    kill "$(cat "$out/first.pid")"
}

# The host's screenshot channel: the VM's second serial port (or, on a board with one, the
# virtio-serial port named sheetd.control), which the host's screens.py answers. `shot NAME` waits until the renderer has shown the daemon's current state (its frame
# log's last frame carries the same state, byte for byte), then asks the host for a screendump
# and waits for it to be taken. The state goes to NAME.state.json beside NAME.ppm.
open_screens() {
    for port in /sys/class/virtio-ports/*; do
        if [ "$(cat "$port/name" 2>/dev/null)" = sheetd.control ]; then
            exec 3<>"/dev/${port##*/}"
            return
        fi
    done
    stty -F /dev/ttyS1 raw -echo 115200 || fail "stty /dev/ttyS1"
    exec 3<>/dev/ttyS1
}
# The daemon's state is the same on two calls 0.1 s apart (a held finger whose item's
# animations have ended gives no event to wait on).
state_is_still() {
    now=$("$bin/sheetctl" state --socket "$socket") || return 1
    before=$(cat "$out/still.json" 2>/dev/null)
    echo "$now" > "$out/still.json"
    [ "$now" = "$before" ]
}
# The renderer's frame log `shot` reads, and the QEMU display device it asks for (none: the first).
frames=frames.jsonl
display=
last_frame_shows() { tail -n 1 "$out/$frames" | grep -qF "\"state\":$1}"; }
# A screenshot of a settled state: one the renderer has shown and the daemon still holds. A
# renderer that has just followed a restarted daemon shows its first state (the configured
# screen) after its SetScreen has already changed it, so the state is read again until the two
# agree.
shot() {
    rounds=0
    while :; do
        state=$("$bin/sheetctl" state --socket "$socket") || fail "shot $1: GetState"
        until_true 600 last_frame_shows "$state" || fail "shot $1: the renderer did not show $state"
        again=$("$bin/sheetctl" state --socket "$socket") || fail "shot $1: GetState"
        [ "$again" = "$state" ] && break
        rounds=$((rounds + 1))
        [ "$rounds" -lt 20 ] || fail "shot $1: the state kept changing ($state, then $again)"
    done
    echo "$state" > "$out/$1.state.json"
    printf 'SHOT %s%s\n' "$1" "${display:+ $display}" >&3
    read -r reply <&3
    [ "$reply" = "OK $1" ] || fail "shot $1: the host said '$reply'"
    say "shot $1: $(head -c 100 "$out/$1.state.json")"
}

# sheetd as a service would run it: its own user and group (uid/gid 990, not in the guest's
# passwd; the host's root is read-only) with the input group for /dev/input, and the socket in
# group 990 mode 0660. The renderer's group (gid 991, sheet-render's) reads every program's
# sheet, as sheetd-render does in the package. Its log goes to $sheetd_log (default sheetd.log).
start_sheetd() {
    mkdir -p /run/sheetd /run/sheetd-state
    chown 990:990 /run/sheetd /run/sheetd-state
    setpriv --reuid=990 --regid=990 --groups="$(getent group input | cut -d: -f3)" --inh-caps=-all \
        "$bin/sheetd" --config /dev/null --input udev:seat0 --socket "$socket" --socket-mode 0660 --render-group 991 \
        --log-level info "$@" >> "$out/${sheetd_log:-sheetd.log}" 2>&1 &
    daemon=$!
    until_true 600 "$bin/sheetctl" state --socket "$socket" || fail "sheetd did not answer on $socket"
}
