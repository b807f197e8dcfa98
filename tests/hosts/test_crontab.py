"""The crontab reader against crontab(5) (cronie and Debian's cron agree on what is quoted
here), and the cut command run by a real /bin/sh -c as cron runs it."""

from __future__ import annotations

import subprocess
from pathlib import PurePath

from quotecheck.hosts.crontab import is_system_crontab, read_crontab
from quotecheck.hosts.kinds import host_format


def commands(source: str, system: bool = False) -> list[str]:
    return [x.text.value for x in read_crontab(source, system).launches if x.text]


def test_the_command_ends_at_the_first_unescaped_percent() -> None:
    # crontab(5): "Percent-signs (%) in the command, unless escaped with backslash (\), will
    # be changed into newline characters, and all data after the first % will be sent to the
    # command as standard input."
    src = "0 3 * * * tar czf /b/$(date +%F).tgz /srv\n5 * * * * date +\\%F > /tmp/d\n"
    assert commands(src) == ["tar czf /b/$(date +", "date +%F > /tmp/d"]
    host = read_crontab(src)
    assert [src[r.span[0]] for r in host.references] == ["%"]


def test_what_the_shell_makes_of_the_cut_command() -> None:
    """Run the first entry as cron would: `/bin/sh -c COMMAND` with the rest on stdin."""
    [cut] = commands("* * * * * printf '%s\\n' hello\n")
    run = subprocess.run(["/bin/sh", "-c", cut], input="s\\n' hello", capture_output=True,
                         text=True, timeout=30)
    assert cut == "printf '"
    assert run.returncode == 2 and "unterminated" in run.stderr.lower(), run.stderr


def test_shell_and_the_user_field() -> None:
    # "The SHELL variable ... the shell to run the command"; in /etc/crontab and /etc/cron.d
    # files "the fields line up ... the sixth field is the user name".
    src = "SHELL=/bin/bash\n*/5 * * * * root /usr/bin/dokku ps:retire >> /var/log/r.log 2>&1\n"
    [launch] = read_crontab(src, system=True).launches
    assert launch.shell == ("/bin/bash", "-c")
    assert launch.text is not None
    assert launch.text.value == "/usr/bin/dokku ps:retire >> /var/log/r.log 2>&1"
    assert is_system_crontab(PurePath("/etc/cron.d/dokku-retire"))
    assert is_system_crontab(PurePath("/etc/crontab"))
    assert not is_system_crontab(PurePath("deploy/backup.cron"))


def test_nicknames_and_lines_that_are_not_entries() -> None:
    src = "# m h dom mon dow command\nMAILTO=ops\n@reboot cd /srv && ./start.sh\n\nnot an entry\n"
    assert commands(src) == ["cd /srv && ./start.sh"]


def test_file_kinds() -> None:
    assert host_format(PurePath("etc/cron.d/backup"), "") == "crontab"
    assert host_format(PurePath("jobs.cron"), "") == "crontab"
    assert host_format(PurePath("crontab"), "") == "crontab"
    assert host_format(PurePath("cron.d/.placeholder"), "") is None
    assert host_format(PurePath("cron.d/job.dpkg-old"), "") is None  # cron skips dotted names
