pub mod attributes;
