"""Results where users already look, imported on use: experiment trackers (`report_to=`)
and a results dataset in the Hub's layout (`hub_folder=`, `push_to_hub=`).

- rows.py              what is sent, computed once from a model's graded rows
- hub.py               the results dataset in the Hub layout: written, pushed
- trackers.py          `report_to=`: one tracker run per model
- send_tensorboard.py  report_to=tensorboard
- send_wandb.py        report_to=wandb
- send_mlflow.py       report_to=mlflow
- send_trackio.py      report_to=trackio
"""
