"""The ipdirect binary a benchmark measures: IPDIRECT_BIN, or the package's release build."""

import os
import subprocess

# A clean release build of the package on two busy cores takes minutes; this only bounds a stuck one.
BUILD_TIMEOUT_SECONDS = 1200


def ipdirect_binary(repo_dir, log_path, rebuild, log):
    """IPDIRECT_BIN, else the package's release build, built now if missing (or always with `rebuild`), the
    compiler's output going to `log_path`. Returns (path, None) or (None, why not)."""
    explicit = os.environ.get("IPDIRECT_BIN")
    if explicit:
        if os.access(explicit, os.X_OK):
            return explicit, None
        return None, f"IPDIRECT_BIN={explicit} is not an executable file"
    built = os.path.join(repo_dir, ".build", "release", "ipdirect")
    if os.access(built, os.X_OK) and not rebuild:
        return built, None
    log("building ipdirect: swift build -c release --product ipdirect")
    try:
        with open(log_path, "w") as build_log:
            result = subprocess.run(["swift", "build", "-c", "release", "--product", "ipdirect"], cwd=repo_dir,
                                    stdout=build_log, stderr=subprocess.STDOUT, timeout=BUILD_TIMEOUT_SECONDS)
    except FileNotFoundError:
        return None, "swift is not installed and IPDIRECT_BIN is not set"
    except subprocess.TimeoutExpired:
        return None, f"swift build did not finish within {BUILD_TIMEOUT_SECONDS} s"
    if result.returncode != 0 or not os.access(built, os.X_OK):
        return None, f"swift build failed (exit {result.returncode}); see logs/{os.path.basename(log_path)}"
    return built, None
