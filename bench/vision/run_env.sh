# Sourced by the scripts that run models h200.sh already exported (env_ab.sh, profile_ab.sh,
# ratio_rounds.sh; same W): where the stage's wick is, its libraries, NVIDIA's Vulkan driver,
# and two helpers.
W=${W:-/tmp/vb}
WICK=$W/wick/wick
VISION=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export LD_LIBRARY_PATH=$W/wick
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}

# model_inputs DIR: inargs = --input SPEC for each input of the model exported in DIR.
model_inputs() {
  inargs=()
  local s
  while read -r s; do inargs+=(--input "$s"); done < <(python3 "$VISION/input_specs.py" "$1")
}

# setting_env SETTING: env_args = its variables (NAME=VALUE, several joined with '+';
# "default" sets none).
setting_env() {
  env_args=()
  [[ $1 == default ]] || IFS=+ read -ra env_args <<< "$1"
}
