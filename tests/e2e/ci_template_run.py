#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs a CI template's own steps on this machine, as the CI service would.

  ci_template_run.py github WORKFLOW.yml ACTION_DIR WORKSPACE
  ci_template_run.py gitlab VENDOR.gitlab-ci.yml JOB TEMPLATE.yml WORKSPACE [NAME=VALUE...]

github: runs every job step of a workflow in WORKSPACE. A `uses:` step that
names ".../ci/github@REF" runs the composite action in ACTION_DIR with the
step's `with:` inputs (its own `uses:` steps are skipped, as every other
`uses:` step is: they need GitHub). `${{ github.action_path }}`,
`${{ github.workspace }}` and `${{ inputs.NAME }}` are substituted;
RUNNER_TEMP, GITHUB_PATH and GITHUB_ENV work as on a runner. A step runs in
bash with -e and pipefail; after a failing step only `if: always()` steps run.

gitlab: resolves the job's `include: remote:` (a URL ending in the template's
name) to TEMPLATE.yml and its `extends:`, then runs the job's `script` in one
bash with -e and pipefail, with the job's variables; NAME=VALUE pairs are
pipeline variables (they override the job's, as in GitLab).

Each step is logged as "step: NAME"; the exit status is the job's: 0, or the
status of the step that failed. 3 means the template could not be read.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

import yaml

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class TemplateError(Exception):
    pass


def load(path):
    try:
        with open(path) as f:
            return yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        raise TemplateError("%s: %s" % (path, e))


def bash(script, cwd, env):
    """One step: bash as GitHub runs `shell: bash` and GitLab runs a script."""
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
        f.write(script)
        path = f.name
    try:
        sys.stdout.flush()
        return subprocess.call(["bash", "--noprofile", "--norc", "-eo", "pipefail", path],
                               cwd=cwd, env=env)
    finally:
        os.unlink(path)


# ---- GitHub Actions ------------------------------------------------------------

class Runner:
    """The state a GitHub runner keeps across the steps of one job."""

    def __init__(self, workspace):
        self.workspace = workspace
        self.temp = os.path.join(os.path.dirname(workspace), "runner-temp")
        os.makedirs(self.temp, exist_ok=True)
        self.path_file = os.path.join(self.temp, "github_path")
        self.env_file = os.path.join(self.temp, "github_env")
        self.env = dict(os.environ, RUNNER_TEMP=self.temp, GITHUB_WORKSPACE=workspace,
                        GITHUB_PATH=self.path_file, GITHUB_ENV=self.env_file, CI="true",
                        GITHUB_ACTIONS="true")
        self.failed = 0

    def substitute(self, text, context):
        def one(m):
            expr = m.group(1)
            if expr in context:
                return context[expr]
            if expr.startswith("inputs.") and "inputs" in context:
                return context["inputs"].get(expr[len("inputs."):], "")
            raise TemplateError("unsupported expression ${{ %s }}" % expr)
        return EXPR.sub(one, str(text))

    def absorb_files(self):
        """What a step wrote to $GITHUB_PATH and $GITHUB_ENV reaches the next."""
        if os.path.exists(self.path_file):
            with open(self.path_file) as f:
                for line in f.read().split("\n"):
                    if line:
                        self.env["PATH"] = line + os.pathsep + self.env["PATH"]
            os.unlink(self.path_file)
        if os.path.exists(self.env_file):
            with open(self.env_file) as f:
                for line in f.read().split("\n"):
                    if "=" in line:
                        k, v = line.split("=", 1)
                        self.env[k] = v
            os.unlink(self.env_file)

    def should_run(self, step):
        cond = str(step.get("if", "")).replace("${{", "").replace("}}", "").strip()
        if self.failed:
            return cond.startswith("always()")
        return True

    def run_steps(self, steps, context, action_dir):
        for step in steps:
            name = step.get("name") or step.get("uses") or step.get("run", "").split("\n")[0]
            if not self.should_run(step):
                print("step: %s (skipped: an earlier step failed)" % name)
                continue
            if "uses" in step:
                uses = step["uses"]
                if re.search(r"/ci/github@", uses) and action_dir:
                    print("step: %s (the nve-conform action, run from %s)" % (uses, action_dir))
                    self.run_action(action_dir, step.get("with") or {})
                else:
                    print("step: %s (skipped: uses: needs GitHub)" % uses)
                continue
            shell = step.get("shell", "bash")
            if shell != "bash":
                raise TemplateError("step '%s': only shell: bash is supported" % name)
            env = dict(self.env)
            for k, v in (step.get("env") or {}).items():
                env[k] = self.substitute(v, context)
            print("step: %s" % name)
            status = bash(self.substitute(step["run"], context), self.workspace, env)
            self.absorb_files()
            if status != 0:
                print("step: %s failed (exit %d)" % (name, status))
                if not self.failed:
                    self.failed = status

    def run_action(self, action_dir, with_inputs):
        action = load(os.path.join(action_dir, "action.yml"))
        declared = action.get("inputs") or {}
        inputs = {}
        for k, spec in declared.items():
            if k in with_inputs:
                inputs[k] = str(with_inputs[k])
            elif (spec or {}).get("required"):
                raise TemplateError("the action's required input '%s' is not given" % k)
            else:
                inputs[k] = str((spec or {}).get("default", ""))
        for k in with_inputs:
            if k not in declared:
                raise TemplateError("the action has no input '%s'" % k)
        runs = action.get("runs") or {}
        if runs.get("using") != "composite":
            raise TemplateError("the action is not a composite action")
        context = {"github.action_path": action_dir, "github.workspace": self.workspace,
                   "inputs": inputs}
        self.run_steps(runs.get("steps") or [], context, None)


def github(workflow_path, action_dir, workspace):
    workflow = load(workflow_path)
    runner = Runner(workspace)
    for job_name, job in (workflow.get("jobs") or {}).items():
        print("job: %s" % job_name)
        context = {"github.workspace": workspace}
        runner.run_steps(job.get("steps") or [], context, action_dir)
    return runner.failed


# ---- GitLab CI -----------------------------------------------------------------

def merge(base, over):
    """GitLab's extends: hashes merge key by key, anything else is replaced."""
    out = dict(base)
    for k, v in over.items():
        out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def gitlab(vendor_path, job_name, template_path, workspace, pipeline_vars):
    vendor = load(vendor_path)
    jobs = {}
    includes = vendor.get("include") or []
    for inc in includes if isinstance(includes, list) else [includes]:
        remote = inc.get("remote", "") if isinstance(inc, dict) else str(inc)
        if not remote.endswith("/" + os.path.basename(template_path)):
            raise TemplateError("include %s is not the nve-conform template" % remote)
        jobs.update(load(template_path))
    jobs.update({k: v for k, v in vendor.items() if k != "include"})
    if job_name not in jobs:
        raise TemplateError("no job '%s'" % job_name)

    def resolve(name, seen=()):
        job = jobs[name]
        if name in seen:
            raise TemplateError("extends loop at '%s'" % name)
        parents = job.get("extends") or []
        result = {}
        for p in parents if isinstance(parents, list) else [parents]:
            if p not in jobs:
                raise TemplateError("job '%s' extends unknown '%s'" % (name, p))
            result = merge(result, resolve(p, seen + (name,)))
        return merge(result, {k: v for k, v in job.items() if k != "extends"})

    job = resolve(job_name)
    env = dict(os.environ, CI="true", GITLAB_CI="true", CI_PROJECT_DIR=workspace,
               CI_JOB_NAME=job_name)
    for k, v in (job.get("variables") or {}).items():
        env[k] = str(v)
    env.update(pipeline_vars)
    script = job.get("script")
    if not script:
        raise TemplateError("job '%s' has no script" % job_name)
    lines = []
    for cmd in script if isinstance(script, list) else [script]:
        lines.append("echo %s" % shlex.quote("step: " + cmd.split("\n")[0]))
        lines.append(cmd)
    print("job: %s" % job_name)
    status = bash("\n".join(lines) + "\n", workspace, env)
    if status != 0:
        print("job: %s failed (exit %d)" % (job_name, status))
    return status


def main(argv):
    try:
        if len(argv) == 5 and argv[1] == "github":
            return github(argv[2], os.path.abspath(argv[3]), os.path.abspath(argv[4]))
        if len(argv) >= 6 and argv[1] == "gitlab":
            pipeline = dict(a.split("=", 1) for a in argv[6:])
            return gitlab(argv[2], argv[3], argv[4], os.path.abspath(argv[5]), pipeline)
    except TemplateError as e:
        print("ci_template_run: %s" % e, file=sys.stderr)
        return 3
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 3


if __name__ == "__main__":
    sys.exit(main(sys.argv))
