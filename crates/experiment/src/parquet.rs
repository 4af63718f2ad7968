//! The Parquet writer: the columns of a [`Table`] as one row group per
//! batch, plain required columns (INT64, UINT_64, DOUBLE, UTF8 strings,
//! dictionary-encoded by the writer), no compression codec (the `parquet`
//! crate is built without them to keep the build small).

use crate::table::{Data, Table};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use std::io::Write;
use std::sync::Arc;

/// Writes row groups to `W`.
pub struct ParquetWriter<W: Write + Send> {
    inner: SerializedFileWriter<W>,
}

fn err(e: parquet::errors::ParquetError) -> std::io::Error {
    std::io::Error::other(e.to_string())
}

impl<W: Write + Send> ParquetWriter<W> {
    /// A writer for the columns of `t` (its column names and types).
    pub fn new(out: W, t: &Table, metadata: &[(String, String)]) -> std::io::Result<ParquetWriter<W>> {
        let fields: Vec<String> = t
            .columns
            .iter()
            .map(|c| match c.data {
                Data::I64(_) => format!("REQUIRED INT64 {};", c.name),
                Data::U64(_) => format!("REQUIRED INT64 {} (UINT_64);", c.name),
                Data::F64(_) => format!("REQUIRED DOUBLE {};", c.name),
                Data::Str(..) => format!("REQUIRED BYTE_ARRAY {} (UTF8);", c.name),
            })
            .collect();
        let schema = parse_message_type(&format!("message schedlab_sweep {{ {} }}", fields.join(" "))).map_err(err)?;
        let kv = metadata
            .iter()
            .map(|(k, v)| parquet::file::metadata::KeyValue::new(k.clone(), v.clone()))
            .collect::<Vec<_>>();
        let props = WriterProperties::builder().set_key_value_metadata(Some(kv)).build();
        let inner = SerializedFileWriter::new(out, Arc::new(schema), Arc::new(props)).map_err(err)?;
        Ok(ParquetWriter { inner })
    }

    /// Writes the rows of `t` as one row group.
    pub fn write(&mut self, t: &Table) -> std::io::Result<()> {
        if t.rows() == 0 {
            return Ok(());
        }
        let mut rg = self.inner.next_row_group().map_err(err)?;
        let mut k = 0;
        while let Some(mut col) = rg.next_column().map_err(err)? {
            match &t.columns[k].data {
                Data::I64(v) => {
                    col.typed::<Int64Type>().write_batch(v, None, None).map_err(err)?;
                }
                Data::U64(v) => {
                    let v: Vec<i64> = v.iter().map(|&x| x as i64).collect();
                    col.typed::<Int64Type>().write_batch(&v, None, None).map_err(err)?;
                }
                Data::F64(v) => {
                    col.typed::<DoubleType>().write_batch(v, None, None).map_err(err)?;
                }
                Data::Str(codes, dict) => {
                    let words: Vec<ByteArray> = dict.iter().map(|s| ByteArray::from(s.as_str())).collect();
                    let v: Vec<ByteArray> = codes.iter().map(|&c| words[c as usize].clone()).collect();
                    col.typed::<ByteArrayType>().write_batch(&v, None, None).map_err(err)?;
                }
            }
            col.close().map_err(err)?;
            k += 1;
        }
        rg.close().map_err(err)?;
        Ok(())
    }

    pub fn finish(self) -> std::io::Result<W> {
        self.inner.into_inner().map_err(err)
    }
}
