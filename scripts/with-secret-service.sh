#!/usr/bin/env bash
# Run a command with a real, unlocked Secret Service: gnome-keyring on a private D-Bus session.
#
#   scripts/with-secret-service.sh pytest -m secret_service
#
# The keyring lives in a throwaway directory, so the user's own keyrings are never touched.
# Needs the Debian packages gnome-keyring and dbus (dbus-run-session).
set -euo pipefail

if [ -z "${STABLEPAY_INSIDE_DBUS_SESSION:-}" ]; then
    command -v dbus-run-session >/dev/null || { echo "dbus-run-session not found (apt-get install dbus)" >&2; exit 127; }
    command -v gnome-keyring-daemon >/dev/null || { echo "gnome-keyring-daemon not found (apt-get install gnome-keyring)" >&2; exit 127; }
    exec env STABLEPAY_INSIDE_DBUS_SESSION=1 dbus-run-session -- "$0" "$@"
fi

scratch="$(mktemp -d)"
export XDG_DATA_HOME="$scratch/data" XDG_CONFIG_HOME="$scratch/config" XDG_CACHE_HOME="$scratch/cache"
export XDG_RUNTIME_DIR="$scratch/runtime"
mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"

# A fresh login keyring is created with this throwaway password and left unlocked.
password="$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
eval "$(printf '%s' "$password" | gnome-keyring-daemon --unlock --components=secrets | sed 's/^/export /')"
unset password

cleanup() {
    if [ -n "${GNOME_KEYRING_PID:-}" ]; then kill "$GNOME_KEYRING_PID" 2>/dev/null || true; fi
    rm -rf "$scratch"
}
trap cleanup EXIT

status=0
"$@" || status=$?
exit "$status"
