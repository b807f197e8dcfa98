"""The Kubernetes manifest reader against the documentation ("Define a Command and Arguments
for a Container", kubernetes.io; the `Container` API reference), quoted in each test: no
kubelet runs here."""

from __future__ import annotations

from pathlib import PurePath

from quotecheck.hosts.kinds import host_format
from quotecheck.hosts.kubernetes import read_manifests

POD = """apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: c
      image: debian
      env:
        - name: MESSAGE
          value: hello
{body}"""


def argv(body: str) -> list[tuple[str, bool]]:
    [launch] = read_manifests(POD.format(body=body)).launches
    return [(a.value, a.dynamic) for a in launch.argv]


def test_command_and_args_are_the_argv() -> None:
    # "The command and arguments that you define in the configuration file override the
    # default command and arguments provided by the container image."
    assert argv('      command: ["printenv"]\n      args: ["HOSTNAME", "KUBERNETES_PORT"]\n') \
        == [("printenv", False), ("HOSTNAME", False), ("KUBERNETES_PORT", False)]


def test_only_defined_variables_in_parentheses_are_expanded() -> None:
    # "you can use environment variables ... $(VAR_NAME)"; "Double $$ are reduced to a single
    # $, which allows for escaping the $(VAR_NAME) syntax"; "If a variable cannot be resolved,
    # the reference in the input string will be unchanged".
    got = argv('      command: ["echo"]\n'
               '      args: ["$(MESSAGE)", "$$(MESSAGE)", "$(OTHER)", "$MESSAGE"]\n')
    assert got == [("echo", False), ("{MESSAGE}", True), ("$(MESSAGE)", False),
                   ("$(OTHER)", False), ("$MESSAGE", False)]


def test_a_double_dollar_is_one_everywhere() -> None:
    # "Double $$ are reduced to a single $": not only before `(`; a shell then gets one `$`
    got = argv('      command: ["sh", "-c"]\n      args: ["echo $$ $$$$HOME $x"]\n')
    assert got[2] == ("echo $ $$HOME $x", False)


def test_no_command_runs_the_images_entrypoint() -> None:
    assert read_manifests(POD.format(body='      args: ["--x"]\n')).launches == ()


def test_templates_of_workloads_and_several_documents() -> None:
    job = ("apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: j\nspec:\n"
           "  schedule: '0 3 * * *'\n  jobTemplate:\n    spec:\n      template:\n"
           "        spec:\n          containers:\n            - name: b\n"
           "              image: x\n              command: [sh, -c, 'date']\n"
           "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\n")
    [launch] = read_manifests(job).launches
    assert [a.value for a in launch.argv] == ["sh", "-c", "date"]
    assert host_format(PurePath("k8s/backup.yaml"), job) == "kubernetes"
    # any manifest is read (its workloads may come in a later document); one with no pod
    # template starts nothing
    config = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\n"
    assert host_format(PurePath("k8s/config.yaml"), config) == "kubernetes"
    assert read_manifests(config).launches == ()
    assert host_format(PurePath("k8s/values.yaml"), "replicas: 2\nimage: x\n") is None


def test_pod_templates_of_custom_resources() -> None:
    # a RayCluster keeps a pod template per group; the kubelet runs its containers as any
    ray = ("apiVersion: ray.io/v1\nkind: RayCluster\nspec:\n  headGroupSpec:\n"
           "    template:\n      spec:\n        containers:\n        - name: head\n"
           "          image: rayproject/ray\n          command: [ray, start, --head]\n")
    [launch] = read_manifests(ray).launches
    assert [a.value for a in launch.argv] == ["ray", "start", "--head"]
    assert launch.where == "container:head"
