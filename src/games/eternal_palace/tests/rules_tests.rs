//! Rule examples and errors.
