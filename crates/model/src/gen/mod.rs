//! Task-set generators (filled in below).
