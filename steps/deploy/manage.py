"""``python -m steps.deploy.manage status [NAME] | stop NAME``: the local deployments, as JSON on stdout.

What ``aipipe deploy status|stop`` runs: the platform reads the deploy step's records through this
command, never by importing the step. ``status`` prints a list of rows, ``stop`` the stopped record;
errors are one ``deploy: error:`` line with the contract's exit code (2 for an unknown name).
"""

from __future__ import annotations

import argparse
import json

from aipipe.config import load_config
from aipipe.stepkit import run_step

from .local import LocalDeployments


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog=f"python -m {__package__}.manage", description=__doc__)
    parser.add_argument("action", choices=("status", "stop"))
    parser.add_argument("name", nargs="?", default=None, help="deployment name; status: all when omitted")
    args = parser.parse_args(argv)
    deployments = LocalDeployments(load_config().home)
    if args.action == "status":
        rows = [deployments.status(n) for n in ([args.name] if args.name else deployments.names())]
        print(json.dumps(rows))
        return
    if not args.name:
        parser.error("stop needs a deployment name")
    print(json.dumps(deployments.stop(args.name).to_dict()))


if __name__ == "__main__":
    run_step("deploy", main)
