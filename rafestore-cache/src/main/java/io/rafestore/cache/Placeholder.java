package io.rafestore.cache; final class Placeholder {}
