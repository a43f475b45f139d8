"""DNSPod D+'s encrypted form, server side: `dn=` and the answer are hex ciphertext.

`des`: DES-ECB with PKCS#5 padding under the 8 key bytes. `aes`: AES-128-CBC with PKCS#7 padding under the 16
key bytes, the hex being IV followed by ciphertext, a fresh IV for every message. Mirrors the client's
DNSPodCipher (Sources/IPDirectIO/Resolve/Providers), whose test vectors the harness tests reuse.
"""

import os

from cryptography.hazmat.decrepit.ciphers.algorithms import TripleDES
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

# Single DES is TripleDES with K1 = K2 = K3 (encrypt, decrypt, encrypt with one key); cryptography no longer
# takes an 8-byte key for that, so the key is given three times.
DES_KEY_BYTES = 8
DES_AS_TRIPLE_DES_REPEATS = 3
AES_KEY_BYTES = 16
# Block sizes in bits, as the padding API wants them; the AES block is also the IV.
DES_BLOCK_BITS = 64
AES_BLOCK_BITS = 128
AES_IV_BYTES = AES_BLOCK_BITS // 8
ALGORITHMS = ("des", "aes")


class DnspodCipher:
    def __init__(self, algorithm: str, key: bytes):
        expected = {"des": DES_KEY_BYTES, "aes": AES_KEY_BYTES}[algorithm]
        if len(key) != expected:
            raise ValueError(f"a {algorithm} key is {expected} bytes, not {len(key)}")
        self.algorithm = algorithm
        self.key = key

    def encrypt_hex(self, plaintext: bytes, iv: bytes | None = None) -> str:
        if self.algorithm == "des":
            return _crypt(self._des(), DES_BLOCK_BITS, plaintext, True).hex()
        iv = os.urandom(AES_IV_BYTES) if iv is None else iv
        return (iv + _crypt(Cipher(algorithms.AES(self.key), modes.CBC(iv)), AES_BLOCK_BITS, plaintext, True)).hex()

    def decrypt_hex(self, text: str) -> bytes:
        """The plaintext of hex ciphertext; ValueError when it is not hex or does not decrypt."""
        data = bytes.fromhex(text.strip())
        if self.algorithm == "des":
            return _crypt(self._des(), DES_BLOCK_BITS, data, False)
        if len(data) <= AES_IV_BYTES:
            raise ValueError("shorter than its IV")
        iv, ciphertext = data[:AES_IV_BYTES], data[AES_IV_BYTES:]
        return _crypt(Cipher(algorithms.AES(self.key), modes.CBC(iv)), AES_BLOCK_BITS, ciphertext, False)

    def _des(self) -> Cipher:
        return Cipher(TripleDES(self.key * DES_AS_TRIPLE_DES_REPEATS), modes.ECB())


def _crypt(cipher: Cipher, block_bits: int, data: bytes, encrypting: bool) -> bytes:
    if encrypting:
        padder = padding.PKCS7(block_bits).padder()
        encryptor = cipher.encryptor()
        return encryptor.update(padder.update(data) + padder.finalize()) + encryptor.finalize()
    if len(data) % (block_bits // 8):
        raise ValueError("not a whole number of blocks")
    decryptor = cipher.decryptor()
    unpadder = padding.PKCS7(block_bits).unpadder()
    return unpadder.update(decryptor.update(data) + decryptor.finalize()) + unpadder.finalize()
