class Lockout(private val max: Int) {
    fun locked(attempts: Int): Boolean = attempts >= max
}
