"""Results where users already look: experiment trackers (`report_to=`) and a results
dataset in the Hugging Face Hub's layout (`hub_folder=`, `push_to_hub=`). Modules are
imported on use: a report that sends results nowhere loads none of them.

- rows.py              what is sent, computed once from a model's graded rows
- hub.py               the results dataset in the Hub layout: written, pushed
- trackers.py          `report_to=`: one tracker run per model
- send_tensorboard.py  report_to=tensorboard
- send_wandb.py        report_to=wandb
- send_mlflow.py       report_to=mlflow
- send_trackio.py      report_to=trackio
"""
