#!/usr/bin/env bash
# Every fixture in headless Chromium (WebGPU on SwiftShader), the model programs and the
# encoder -> decoder pipelines included: the sweep that tests/js/browser_fixtures.test.mjs
# runs in part in the suite (its CHECKED_ELSEWHERE says where the rest is checked). Needs
# package/dist/ (scripts/build_wasm.sh). ~6 minutes on one core of the 2-core machine.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/env.sh
WICK_BROWSER_FIXTURES=all node --test tests/js/browser_fixtures.test.mjs
