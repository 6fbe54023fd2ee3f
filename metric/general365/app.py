import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("general365", module_type="metric")
launch_gradio_widget(module)
