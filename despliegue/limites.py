"""Each student's server, with everything it starts (kernels, terminals), within the limits of clase.toml.

JupyterHub's ``LocalProcessSpawner`` runs every server as a plain process of its account. ``LimitedSpawner``
first makes a control group (cgroup) for the account, under the hub's own, with the memory, the CPU and the
number of processes ``[limites]`` allows, and the server enters it before it becomes the student: whatever
it starts is born there and cannot leave it. Stopping the server ends everything left in its group.

cgroup v1 (one hierarchy per controller: memory, cpu, pids, as on machines without systemd) and cgroup v2
(one hierarchy) are both understood. A controller the machine does not let the hub use is replaced by an
rlimit where one exists (the address space of each process for memory, the processes of the account for
pids) and said in the hub's log. On a machine booted with systemd, ``jupyterhub-systemdspawner`` does the
same with systemd's own units (README.md).
"""

import asyncio
import contextlib
import os
import resource
import signal
import time
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Float, Integer, Unicode

CGROUPS = Path("/sys/fs/cgroup")
CPU_PERIOD = 100_000  # µs


def own_cgroups():
    """``{controller: folder}`` of this process's cgroups; v2's single hierarchy is under ``""``."""
    places = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(","):
            places[controller] = path.lstrip("/")
    if "memory" in places:  # v1
        return {c: CGROUPS / c / places[c] for c in ("memory", "cpu", "pids") if (CGROUPS / c).is_dir()}
    return {"": CGROUPS / places[""]} if "" in places else {}


def limit_files(memory, cpu, processes):
    """``{controller: {file: value}}`` for v1's controllers and for v2 (``""``); a limit of 0 is no limit."""
    quota = int(cpu * CPU_PERIOD)
    v1 = {
        "memory": {"memory.limit_in_bytes": memory} if memory else {},
        "cpu": {"cpu.shares": 1024, **({"cpu.cfs_period_us": CPU_PERIOD, "cpu.cfs_quota_us": quota} if cpu else {})},
        "pids": {"pids.max": processes} if processes else {},
    }
    v2 = {
        "memory.max": memory or "max",
        "memory.swap.max": 0 if memory else "max",
        "cpu.weight": 100,
        "cpu.max": f"{quota} {CPU_PERIOD}" if cpu else "max",
        "pids.max": processes or "max",
    }
    return {**v1, "": v2}


def processes_in(folders):
    pids = set()
    for folder in folders:
        with contextlib.suppress(OSError):
            pids.update(int(pid) for pid in (folder / "cgroup.procs").read_text().split())
    return pids


def block_forks(folders):
    """No process in the cgroups ``folders`` may start another one (``pids.max`` 0): a fork bomb cannot outrun
    the killing that follows."""
    for folder in folders:
        with contextlib.suppress(OSError):
            (folder / "pids.max").write_text("0")


def end_all(folders, timeout=20):
    """Kill every process in the cgroups ``folders`` (forks blocked, then by id until none is left) and remove
    them."""
    block_forks(folders)
    deadline = time.monotonic() + timeout
    while (pids := processes_in(folders)) and time.monotonic() < deadline:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)
    for folder in folders:
        for _ in range(100):  # the last processes take a moment to leave
            with contextlib.suppress(FileNotFoundError):
                try:
                    folder.rmdir()
                except OSError:
                    time.sleep(0.05)
                    continue
            break


class LimitedSpawner(LocalProcessSpawner):
    """A ``LocalProcessSpawner`` whose servers live in a cgroup per account with memory, CPU and process limits."""

    memory = Integer(0, config=True, help="Bytes of memory for a server and all it starts (0: no limit).")
    cpu = Float(0, config=True, help="Cores a server and all it starts may use at most (0: no limit).")
    processes = Integer(0, config=True, help="Processes and threads of a server and all it starts (0: no limit).")
    group = Unicode("jupyterhub-alumnos", config=True, help="Folder of the students' cgroups, under the hub's.")

    def _folders(self):
        """``{controller: folder}`` of this account's cgroups (made or not)."""
        return {controller: folder / self.group / self.user.name for controller, folder in own_cgroups().items()}

    def _make_cgroups(self):
        """Make the account's cgroups with their limits; return them and the limit files that could not be set."""
        wanted = limit_files(self.memory, self.cpu, self.processes)
        made, missing = [], []
        for controller, folder in self._folders().items():
            try:
                folder.parent.mkdir(exist_ok=True)
                if controller == "":  # v2: a controller reaches a group only if its parent hands it down
                    for parent in (folder.parent.parent, folder.parent):
                        with contextlib.suppress(OSError):
                            (parent / "cgroup.subtree_control").write_text("+memory +cpu +pids")
                end_all([folder])  # what a server of an earlier hub left
                folder.mkdir()
            except OSError as error:
                self.log.warning("No se pudo crear el cgroup %s: %s", folder, error)
                continue
            for file, value in wanted[controller].items():
                try:
                    (folder / file).write_text(str(value))
                except OSError:
                    missing.append(file)
            made.append(folder)
        return made, missing

    def _rlimits(self, made, missing):
        """rlimits for the limits that no cgroup took, each said in the hub's log (in Spanish)."""
        lacking = {file.split(".")[0] for file in missing} if made else {"memory", "cpu", "pids"}
        user, rlimits = self.user.name, []
        if "memory" in lacking and self.memory:
            rlimits.append((resource.RLIMIT_AS, self.memory))
            self.log.warning("Sin cgroup de memoria para %s: cada proceso suyo, hasta %d bytes.", user, self.memory)
        if "pids" in lacking and self.processes:
            rlimits.append((resource.RLIMIT_NPROC, self.processes))
            self.log.warning("Sin cgroup de procesos para %s: su cuenta, hasta %d.", user, self.processes)
        if "cpu" in lacking and self.cpu:
            self.log.warning("Sin cgroup de CPU para %s: su servidor no tiene límite de CPU.", user)
        return rlimits

    def make_preexec_fn(self, name):
        become_the_user = super().make_preexec_fn(name)
        cgroups, rlimits = self._made, self._fallback

        def preexec():  # in the new process, still root: enter the cgroups, then become the student
            for folder in cgroups:
                (folder / "cgroup.procs").write_text("0")
            for limit, value in rlimits:
                resource.setrlimit(limit, (value, value))
            become_the_user()

        return preexec

    async def start(self):
        self._made, self._fallback = [], []
        if self.memory or self.cpu or self.processes:
            self._made, missing = await asyncio.to_thread(self._make_cgroups)
            self._fallback = self._rlimits(self._made, missing)
        return await super().start()

    async def stop(self, now=False):
        await asyncio.to_thread(block_forks, list(self._folders().values()))  # before the server's slow goodbye
        await super().stop(now=now)
        await asyncio.to_thread(end_all, list(self._folders().values()))
