pub fn byte_at(buf: &[u8], idx: usize) -> Result<u8, FrameError> {
    if idx >= buf.len() {
        return Err(FrameError::OutOfRange);
    }
    Ok(unsafe { *buf.get_unchecked(idx) })
}
