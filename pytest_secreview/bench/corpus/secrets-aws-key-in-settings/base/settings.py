import os

DEBUG = False
AWS_REGION = "eu-west-1"
