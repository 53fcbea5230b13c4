#!/usr/bin/env bash
# Install Debian's chromium (for the browser check of the built book) if it is
# missing. Needs root or sudo; skips quietly when neither is available, in which
# case the browser test is skipped with a reason.
set -u
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "chromium is missing and we are not root: the browser check will be skipped" >&2
    exit 0
  fi
fi
if command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's chromium for the browser check..." >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >/dev/null && \
  $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null || {
    echo "could not install chromium: the browser check will be skipped" >&2
    exit 0
  }
fi
exit 0
