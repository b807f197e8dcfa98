#!/bin/bash
#SBATCH --job-name=gritlm-train
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --gres=gpu:8

head_node=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
gpus_per_node=8
LAUNCHER="accelerate launch --num_machines $SLURM_NNODES --num_processes $((SLURM_NNODES * gpus_per_node)) --machine_rank \$SLURM_PROCID --main_process_ip $head_node --main_process_port 29500"
CMD="training/run.py --config configs/base.yaml"
srun --jobid "$SLURM_JOB_ID" bash -c "$LAUNCHER $CMD"
