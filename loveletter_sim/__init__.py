"""Love Letter (Huibers 2016), two players."""
from loveletter_sim import kernels  # noqa: F401  (before encoding, which reads the kernels that offer it)
