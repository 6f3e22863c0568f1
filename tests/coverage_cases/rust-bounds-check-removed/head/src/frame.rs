pub fn byte_at(buf: &[u8], idx: usize) -> Result<u8, FrameError> {
    Ok(unsafe { *buf.get_unchecked(idx) })
}
