"""What the task YAMLs beside this file name (lm-eval loads this file by its path)."""

from general365.integrations.lm_eval import (doc_to_text, load_public, load_sample,  # noqa: F401
                                             process_results)
