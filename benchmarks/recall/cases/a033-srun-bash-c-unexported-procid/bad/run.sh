#!/bin/bash
#SBATCH --job-name=rl
#SBATCH --nodes=5
#SBATCH --ntasks-per-node=1

NUM_INFER_NODES=4
mapfile -t nodes < <(scontrol show hostnames "$SLURM_JOB_NODELIST")
ORCH_PROCID=$NUM_INFER_NODES
export ORCH_ADDR=${nodes[$ORCH_PROCID]}

srun bash -c '
if [ "$SLURM_PROCID" -eq "$ORCH_PROCID" ]; then
    uv run orchestrator @ configs/orchestrator.toml --host "$ORCH_ADDR" &
fi
uv run worker @ configs/worker.toml --orchestrator "$ORCH_ADDR"
wait
'
