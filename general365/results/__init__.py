"""Results where users already look: experiment trackers (`report_to=`, trackers.py) and a
results dataset in the Hugging Face Hub's layout (`hub_folder=`, `push_to_hub=`, hub.py).
Both are fed from the report's graded rows: the metric's flat keys per model and per run
(rows.py), and one plain row per graded response. Modules are imported on use: a report
that sends results nowhere loads none of them."""
