# Read by tests/test_settings_docs.py (never imported): one read of the environment in each
# form its scan must see.
import os
from os import environ

a = os.environ.get("AFR_ONE")
b = os.environ["AFR_TWO"]
c = os.getenv("AFR_THREE")
d = environ.get(a)
e = environ["AFR_FOUR"]
