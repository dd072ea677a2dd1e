"""`afr ask`: a session dispatches each question to its method (``ask``), and one shared
finish runs step 8 and logs the run (``finish``, ``rerank``, ``runs``); ``result`` is what
comes back."""
