#!/usr/bin/python3
"""A throw-away single-node Slurm cluster in one folder, for the Slurm engine's test.

    tests/slurm_single_node.py start DIR    # munged, slurmctld, slurmd on localhost; prints SLURM_CONF=...
    tests/slurm_single_node.py stop DIR     # stops the daemons started in DIR (by the PIDs in DIR)

Everything lives in DIR: a munge key generated for this cluster, munged on its own socket
(slurm.conf's AuthInfo points Slurm at it), slurm.conf with two free ports, state, spool,
logs and PID files. Nothing of the machine's own munge or Slurm set-up is used or touched,
so the test depends on nothing left on the machine by hand. Needs Debian's slurm-wlm and
munge (make deps) and root (directly or through `sudo -n`): slurmd starts jobs as their user.
"""
import os
import secrets
import signal
import socket
import subprocess
import sys
import time

DAEMON_PID_FILES = ["slurmd.pid", "slurmctld.pid", "munge/munged.pid"]


def privileged(command):
    """COMMAND as root: as is when we are root, else through sudo without a password prompt."""
    return command if os.geteuid() == 0 else ["sudo", "-n"] + command


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def write_config(folder):
    ports = set()
    while len(ports) < 2:
        ports.add(free_port())
    controller_port, node_port = sorted(ports)
    config = f"""# Written by tests/slurm_single_node.py: a one-node cluster on localhost for one test.
ClusterName=npuvp-test
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort={controller_port}
SlurmdPort={node_port}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={folder}/munge/socket
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
MpiDefault=none
ReturnToService=2
SchedulerParameters=sched_interval=1
StateSaveLocation={folder}/state
SlurmdSpoolDir={folder}/spool
SlurmctldPidFile={folder}/slurmctld.pid
SlurmdPidFile={folder}/slurmd.pid
SlurmctldLogFile={folder}/log/slurmctld.log
SlurmdLogFile={folder}/log/slurmd.log
NodeName=localhost CPUs={os.cpu_count()} State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
"""
    path = os.path.join(folder, "slurm.conf")
    with open(path, "w") as handle:
        handle.write(config)
    return path


def start(folder):
    folder = os.path.abspath(folder)
    for sub in ("munge", "state", "spool", "log"):
        os.makedirs(os.path.join(folder, sub), exist_ok=True)
    os.chmod(os.path.join(folder, "munge"), 0o700)
    key = os.path.join(folder, "munge", "munge.key")
    with open(os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as handle:
        handle.write(secrets.token_bytes(1024))  # this cluster's own key
    munge = os.path.join(folder, "munge")
    subprocess.run(privileged(["/usr/sbin/munged", "--force", f"--key-file={key}", f"--socket={munge}/socket",
                               f"--pid-file={munge}/munged.pid", f"--log-file={munge}/munged.log",
                               f"--seed-file={munge}/seed"]), check=True)
    config = write_config(folder)
    environment = dict(os.environ, SLURM_CONF=config)
    subprocess.run(privileged(["/usr/sbin/slurmctld", "-f", config]), check=True, env=environment)
    # -N: this node is "localhost" in slurm.conf, whatever the machine calls itself.
    subprocess.run(privileged(["/usr/sbin/slurmd", "-f", config, "-N", "localhost"]), check=True, env=environment)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        state = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, env=environment)
        if state.stdout.strip() == "idle":
            print(f"SLURM_CONF={config}")
            return 0
        time.sleep(0.3)
    sys.stderr.write(f"slurm_single_node: the node did not become idle within 60 s (logs in {folder}/log)\n")
    stop(folder)
    return 1


def stop(folder):
    """SIGTERM to each daemon by the PID it wrote, then SIGKILL if it lingers."""
    for name in DAEMON_PID_FILES:
        path = os.path.join(folder, name)
        try:
            with open(path) as handle:
                pid = int(handle.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
        subprocess.run(privileged(["kill", "-TERM", str(pid)]), capture_output=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and os.path.exists(f"/proc/{pid}"):
            time.sleep(0.1)
        if os.path.exists(f"/proc/{pid}"):
            subprocess.run(privileged(["kill", "-KILL", str(pid)]), capture_output=True)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("start", "stop"):
        sys.exit("usage: slurm_single_node.py start|stop DIR")
    sys.exit(start(sys.argv[2]) if sys.argv[1] == "start" else stop(sys.argv[2]))
