"""LOTR's parts that build on the pipeline rather than under it: its card-level learner (``direct``) and the
perfect-information limit (``limit``), which use the agents and the harness. ``lotr_sim`` is the game itself and
imports none of them; its ``Game`` names these by "module:function"."""
