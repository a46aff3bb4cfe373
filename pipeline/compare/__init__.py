"""`ragprep compare`: chunk quality across extraction modes (issue 7)."""
