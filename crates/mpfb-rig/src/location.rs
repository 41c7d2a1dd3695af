//! Where in an input file something is: the workspace's one [`Location`] type, re-exported.

pub use location::{Location, json_pointer, line_column_at};
