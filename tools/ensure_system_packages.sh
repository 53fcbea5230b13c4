#!/usr/bin/env bash
# Install the Debian packages the tests and the grader use, if they are
# missing: chromium (the browser check of the built book and the PDF),
# poppler-utils (pdftotext/pdfinfo, the PDF check) and bubblewrap (the
# sandbox each student notebook is graded in). Needs root or sudo; skips
# quietly when neither is available, in which case the tests that need them
# are skipped with a reason (`.ci/run` makes the sandbox's tests fail instead).
set -u
need=""
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || need="$need chromium fonts-dejavu-core"
command -v pdftotext >/dev/null 2>&1 || need="$need poppler-utils"
command -v bwrap >/dev/null 2>&1 || need="$need bubblewrap"
[ -z "$need" ] && exit 0
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "missing:$need and we are not root: the tests that need them will be skipped" >&2
    exit 0
  fi
fi
if command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's$need for the browser and PDF checks and the grader's sandbox..." >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >/dev/null && \
  $SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null || {
    echo "could not install$need: the tests that need them will be skipped" >&2
    exit 0
  }
fi
exit 0
