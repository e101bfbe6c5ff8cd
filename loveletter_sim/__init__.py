"""Love Letter (Huibers 2016), two players."""
